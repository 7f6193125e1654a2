package chaos

import (
	"fmt"
	"strings"
	"testing"

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
	c.onNumber(4) // 2 and 3 under the ErrMissed
	c.markAmbiguous(5)
	c.onNumber(5)
	c.onNumber(5) // sent again after an error: allowed
	assert.Empty(t, r.msgs)
	c.onNumber(7)
	c.onNumber(6)
	assert.Equal(t, "chaos violation [sequence] pgl-x: notifications 6..6 silently skipped: 7 came after 5 with no ErrMissed between them\n"+
		"chaos violation [sequence] pgl-x: notification 6 delivered twice, and its NOTIFY was sent once", r.text())
	received, covered, dups := c.counts()
	assert.Equal(t, []int64{6, 2, 2, 1}, []int64{received, covered, dups, v.lost.Load()})
}
