package backoff_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
)

// tail is an op whose latency is 10 ms, or 1 s with a 5 % chance, drawn
// from the test's own seeded generator. It counts its calls.
type tail struct {
	mu    sync.Mutex
	rng   *rand.Rand
	calls int
}

func newTail() *tail { return &tail{rng: rand.New(rand.NewPCG(1, 2))} }

func (o *tail) op(ctx context.Context) (struct{}, error) {
	o.mu.Lock()
	o.calls++
	d := 10 * time.Millisecond
	if o.rng.Float64() < 0.05 {
		d = time.Second
	}
	o.mu.Unlock()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return struct{}{}, nil
	case <-ctx.Done():
		return struct{}{}, ctx.Err()
	}
}

// percentile returns the p-th percentile of sorted by nearest rank.
func percentile(sorted []time.Duration, p int) time.Duration {
	return sorted[(len(sorted)*p+99)/100-1]
}

// latencies makes n calls of call one after the other and returns their
// latencies, sorted.
func latencies(t *testing.T, n int, call func() error) []time.Duration {
	d := make([]time.Duration, n)
	for i := range d {
		start := time.Now()
		require.NoError(t, call())
		d[i] = time.Since(start)
	}
	slices.Sort(d)
	return d
}

// TestHedgeCutsTheTail measures, in virtual time, 1,000 calls of the tail
// op with and without hedging (Delay 20 ms, Max 2). Without, the 5 % of
// slow calls put p99 at 1 s; with, a slow first copy is overtaken by a
// second one 20 ms later, and only the 0.25 % of calls whose two copies
// are both slow take 1 s.
func TestHedgeCutsTheTail(t *testing.T) {
	const calls = 1000
	synctest.Test(t, func(t *testing.T) {
		plain := newTail()
		unhedged := latencies(t, calls, func() error {
			_, err := plain.op(t.Context())
			return err
		})

		hedgedOp := newTail()
		hedged := latencies(t, calls, func() error {
			_, err := backoff.Hedge(t.Context(), hedgedOp.op, backoff.HedgeOptions{Delay: 20 * time.Millisecond})
			return err
		})
		extra := hedgedOp.calls - calls

		t.Logf("hedge: calls=%d p50=%v p99=%v unhedged p50=%v p99=%v extra copies=%d",
			calls, percentile(hedged, 50), percentile(hedged, 99),
			percentile(unhedged, 50), percentile(unhedged, 99), extra)
		assert.Equal(t, 10*time.Millisecond, percentile(hedged, 50))
		assert.Equal(t, 10*time.Millisecond, percentile(unhedged, 50))
		assert.LessOrEqual(t, percentile(hedged, 99), 40*time.Millisecond)
		assert.GreaterOrEqual(t, percentile(unhedged, 99), time.Second)
		assert.InDelta(t, calls*5/100, extra, 25, "about one extra copy per slow call")
	})
}
