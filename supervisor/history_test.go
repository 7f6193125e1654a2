package supervisor_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
)

func TestHistoryKeepsTheLast64(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{errors.New("refused")}}
		r := start(t, f, exponential(time.Millisecond, time.Millisecond))
		r.untilConnected(t)
		h := r.History()
		require.Len(t, h, 4, "to connecting, backoff, connecting, connected: %v", h)
		assert.Equal(t, health.Idle, h[0].From)
		assert.Equal(t, health.Connecting, h[0].To)
		assert.Equal(t, health.Backoff, h[1].To)
		assert.EqualError(t, h[1].Err, "connect: refused")
		assert.Equal(t, time.Millisecond, h[1].Delay)
		assert.Equal(t, "backoff", h[1].Reason)
		assert.Equal(t, 1, h[1].ConsecutiveFailures)
		assert.Equal(t, health.Connected, h[3].To)
		assert.Nil(t, h[3].Err)
		first := h[0]

		// 61 more transitions make 65: the first is evicted.
		for len(r.History()) < 64 {
			f.last().broken <- errors.New("flap")
			r.untilConnected(t)
		}
		require.Len(t, r.History(), 64)
		assert.Equal(t, first, r.History()[0])
		before := r.History()
		f.last().broken <- errors.New("flap")
		synctest.Wait()
		h = r.History()
		require.Len(t, h, 64)
		assert.NotEqual(t, first, h[0], "the 65th evicted the first")
		assert.Equal(t, before[1], h[0], "the rest moved up")
		assert.Equal(t, health.Backoff, h[63].To)
		assert.NoError(t, r.stop())
		assert.Equal(t, health.Stopped, r.History()[63].To)
	})
}

// TestReadingHistoryNeverSlowsTheSupervisor: a reader in a loop does not
// hold up 200 losses, each of which waits exactly 1ms.
func TestReadingHistoryNeverSlowsTheSupervisor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		r := start(t, f, exponential(time.Millisecond, time.Millisecond))
		var stop atomic.Bool
		var reads atomic.Int64
		done := make(chan struct{})
		go func() {
			defer close(done)
			for !stop.Load() {
				_ = r.History()
				reads.Add(1)
				time.Sleep(100 * time.Microsecond)
			}
		}()
		r.untilConnected(t)
		t0 := time.Now()
		for range 200 {
			f.last().broken <- errors.New("flap")
			r.untilConnected(t)
		}
		assert.Equal(t, 200*time.Millisecond, time.Since(t0))
		stop.Store(true)
		<-done
		assert.Positive(t, reads.Load())
		assert.NoError(t, r.stop())
	})
}
