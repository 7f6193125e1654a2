package backoff_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
)

// TestBreakerSharedByManyGoroutines runs 64 goroutines on one breaker (run
// it with -race). Each round opens the breaker, lets the Cooldown pass and
// has every goroutine ask Allow at once: exactly one probe goes through.
// Then all of them hammer Allow, Record and State with a mix of results.
func TestBreakerSharedByManyGoroutines(t *testing.T) {
	const workers = 64
	synctest.Test(t, func(t *testing.T) {
		b := mustBreaker(t, backoff.BreakerConfig{Failures: 3, Cooldown: time.Second})
		for round := range 20 {
			fail(b, 3)
			require.Equal(t, backoff.Open, b.State())
			time.Sleep(time.Second)

			var allowed, refused atomic.Int64
			var wg sync.WaitGroup
			start := make(chan struct{})
			for range workers {
				wg.Go(func() {
					<-start
					if err := b.Allow(); err == nil {
						allowed.Add(1)
					} else if errors.Is(err, backoff.ErrOpen) {
						refused.Add(1)
					}
				})
			}
			close(start)
			wg.Wait()
			require.Equal(t, int64(1), allowed.Load(), "round %d: probes let through at once", round)
			require.Equal(t, int64(workers-1), refused.Load(), "round %d", round)

			b.Record(nil) // the probe's success
			require.Equal(t, backoff.Closed, b.State())

			for w := range workers {
				wg.Go(func() {
					for i := range 200 {
						if b.Allow() != nil {
							_ = b.State()
							continue
						}
						switch (w + i) % 4 {
						case 0:
							b.Record(nil)
						case 1:
							b.Record(backoff.Permanent(errBusy))
						default:
							b.Record(errBusy)
						}
					}
				})
			}
			wg.Wait()
			time.Sleep(time.Second) // an open breaker turns half-open
			if b.State() == backoff.HalfOpen && b.Allow() == nil {
				b.Record(nil)
			}
			require.Equal(t, backoff.Closed, b.State(), "round %d", round)
		}
	})
}

// TestBreakerSharedRealTime is a storm on the real clock, outside
// synctest's bubble, with a Cooldown short enough that the breaker turns
// half-open while the goroutines run: every state is crossed many times.
func TestBreakerSharedRealTime(t *testing.T) {
	b := mustBreaker(t, backoff.BreakerConfig{Failures: 2, Cooldown: 50 * time.Microsecond})
	var wg sync.WaitGroup
	var allowed, refused atomic.Int64
	for w := range 32 {
		wg.Go(func() {
			for i := range 2000 {
				_ = b.State()
				if b.Allow() != nil {
					refused.Add(1)
					continue
				}
				allowed.Add(1)
				if (w+i)%3 == 0 {
					b.Record(nil)
				} else {
					b.Record(errBusy)
				}
			}
		})
	}
	wg.Wait()
	assert.Positive(t, allowed.Load())
	assert.Positive(t, refused.Load())
	assert.Contains(t, []backoff.BreakerState{backoff.Closed, backoff.Open, backoff.HalfOpen}, b.State())
}
