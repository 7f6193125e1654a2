package chaos

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	assert.Equal(t, []string{"chaos violation [one-connection] late: 2 live server-side connections (limit 1) for " + (overlapGrace + time.Millisecond).Round(time.Millisecond).String() + ", since " + t0.Format("15:04:05.000")}, r.msgs)
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
