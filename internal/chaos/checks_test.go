package chaos

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB whose Errorf records instead of failing: it
// lets these tests see the violations a check reports.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}

func (r *recorder) text() string { return strings.Join(r.msgs, "\n") }

func TestFeedCheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		msgs     []string
		want     string // in the one violation; "" for none
		lost     int64
		covered  int64
		replayed int64
	}{
		{name: "in order across a replayed reconnect", msgs: []string{"start 1 1 fresh", "m 1 1", "m 1 2", "start 2 2 replay", "m 2 2", "m 2 3"}, replayed: 1},
		{name: "a gap at a fresh start is covered", msgs: []string{"start 1 1 fresh", "m 1 1", "start 2 5 fresh", "m 2 5"}, covered: 3},
		{name: "a gap within a connection", msgs: []string{"start 1 1 fresh", "m 1 1", "m 1 3"}, want: "numbers 2..2 silently skipped: 3 came after 1 within connection #1", lost: 1},
		{name: "a replay that leaves a gap", msgs: []string{"start 1 1 fresh", "m 1 1", "start 2 4 replay"}, want: "the server replays connection #2 from 4, but 2..3 were never received", lost: 2},
		{name: "a number twice outside a replay", msgs: []string{"start 1 1 fresh", "m 1 1", "m 1 2", "start 2 3 fresh", "m 2 2"}, want: "number 2 received twice"},
		{name: "a stale connection's message", msgs: []string{"start 1 1 fresh", "m 1 1", "start 2 2 fresh", "m 1 2"}, want: "number 2 of connection #1 arrived while connection #2 is current"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			v := newViolations(r)
			f := newFeedCheck("ws-x", v)
			for _, m := range tc.msgs {
				f.onMessage([]byte(m))
			}
			_, covered, dups := f.counts()
			if tc.want == "" {
				assert.Empty(t, r.msgs)
			} else {
				require.Len(t, r.msgs, 1)
				assert.Contains(t, r.msgs[0], "[sequence] ws-x: "+tc.want)
			}
			assert.Equal(t, tc.lost, v.lost.Load(), "lost")
			assert.Equal(t, tc.covered, covered, "covered")
			assert.Equal(t, tc.replayed, dups, "received again")
		})
	}
}

func TestNoteCheck(t *testing.T) {
	r := &recorder{}
	v := newViolations(r)
	c := newNoteCheck("pgl-x", v)
	c.onNumber(1)
	c.onMissed()
	c.onNumber(4) // 2 and 3 under the Missed event
	c.markAmbiguous(5)
	c.onNumber(5)
	c.onNumber(5) // sent again after an error: allowed
	assert.Empty(t, r.msgs)
	c.onNumber(7)
	c.onNumber(6)
	assert.Equal(t, "chaos violation [sequence] pgl-x: notifications 6..6 silently skipped: 7 came after 5 with no Missed event between them\n"+
		"chaos violation [sequence] pgl-x: notification 6 delivered twice, and its NOTIFY was sent once", r.text())
	received, covered, dups := c.counts()
	assert.Equal(t, []int64{6, 2, 2, 1}, []int64{received, covered, dups, v.lost.Load()})
}

func TestLiveCounterAllowsABriefOverlapOnly(t *testing.T) {
	r := &recorder{}
	c := newLiveCounter(newViolations(r))
	c.setLimit("pool", 2)
	t0 := time.Now()
	c.mu.Lock()
	c.update("ws", 2, t0) // a new connection before the old one's close arrived
	c.update("ws", 1, t0.Add(overlapGrace/2))
	c.update("pool", 2, t0)
	c.update("late", 2, t0)
	c.mu.Unlock()
	c.sweepAt(t0.Add(overlapGrace + time.Millisecond))
	c.sweepAt(t0.Add(2 * overlapGrace)) // reported once per episode
	assert.Equal(t, []string{"chaos violation [one-connection] late: 2 live server-side connections (limit 1) for 1.001s, since " + t0.Format("15:04:05.000")}, r.msgs)
	assert.Equal(t, map[string]int{"ws": 1, "pool": 2, "late": 2}, c.openNow())
}

func TestPlanIsSeeded(t *testing.T) {
	size := planSize{subjects: 50, servers: 6, pg: true}
	a := plan(7, 30*time.Second, size)
	require.Equal(t, a, plan(7, 30*time.Second, size), "the same seed, the same schedule")
	require.NotEqual(t, a, plan(8, 30*time.Second, size))
	var last, lastPG time.Duration
	kinds := map[faultKind]int{}
	for _, f := range a {
		kinds[f.kind]++
		require.Less(t, f.at, 30*time.Second)
		switch f.kind {
		case faultPGRestart:
			if lastPG > 0 {
				assert.GreaterOrEqual(t, f.at-lastPG, pgGapMin, "PostgreSQL restarts come seconds apart")
			}
			lastPG = f.at
			continue
		case faultLatency:
			assert.Greater(t, f.param, connectTimeout, "latency beyond the connect timeout")
		case faultTimeout:
			assert.Less(t, f.param, f.hold, "the timeout toxic closes before it is removed")
		case faultServerRestart:
			assert.Less(t, f.target, size.servers)
		}
		if f.kind != faultServerRestart {
			assert.Less(t, f.target, size.subjects)
		}
		assert.GreaterOrEqual(t, f.at-last, gapMin)
		assert.Less(t, f.at-last, gapMax)
		last = f.at
	}
	assert.Len(t, kinds, int(numFaultKinds), "every kind of fault in 30s: %v", kinds)
}
