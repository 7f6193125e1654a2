package supervisor_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
)

// backoffFor starts a supervisor whose first attempt fails with err and
// returns it in Backoff, its wait of a minute planned.
func backoffFor(t *testing.T, f *fake) *running {
	t.Helper()
	r := start(t, f, exponential(time.Minute, time.Hour))
	synctest.Wait()
	st := r.Status()
	require.Equal(t, health.Backoff, st.State)
	require.GreaterOrEqual(t, time.Until(st.NextAttempt), time.Minute)
	return r
}

// RetryNow ends a Backoff wait: the next attempt starts at once.
func TestRetryNowCutsTheWaitShort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{errRefused}}
		r := backoffFor(t, f)
		time.Sleep(time.Second)
		r.RetryNow()
		r.RetryNow() // twice is once
		synctest.Wait()
		assert.Equal(t, health.Connected, r.Status().State)
		starts, _, _, _ := f.snapshot()
		require.Len(t, starts, 2)
		assert.Equal(t, time.Second, starts[1].Sub(starts[0]), "the second attempt came with RetryNow, not after the minute")
		assert.NoError(t, r.stop())
	})
}

// A RetryNow while Connected (or connecting) does nothing: it does not
// linger to cut the next outage's wait.
func TestRetryNowOutsideBackoffDoesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		r := start(t, f, exponential(time.Minute, time.Hour))
		r.untilConnected(t)
		r.RetryNow()
		synctest.Wait()
		require.Equal(t, health.Connected, r.Status().State, "RetryNow broke a live connection")
		f.mu.Lock()
		c := f.conns[0]
		f.mu.Unlock()
		c.broken <- errRefused // flapping (up for no time): the backoff's wait, a minute
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State)
		require.GreaterOrEqual(t, time.Until(st.NextAttempt), time.Minute)
		assert.ErrorContains(t, st.Err, errRefused.Error(), "the loss's reason is the connection's")
		time.Sleep(30 * time.Second)
		starts, _, _, _ := f.snapshot()
		assert.Len(t, starts, 1, "a RetryNow made while Connected cut a later wait")
		assert.NoError(t, r.stop())
	})
}

// A wait a server's hint set, or a Budget's refusal, is honoured.
func TestRetryNowHonoursHints(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{backoff.RetryAfter(errRefused, 2*time.Hour)}}
		o := exponential(time.Minute, time.Hour)
		o.MaxHint = 3 * time.Hour
		r := start(t, f, o)
		synctest.Wait()
		require.Equal(t, health.Backoff, r.Status().State)
		r.RetryNow()
		time.Sleep(time.Hour)
		starts, _, _, _ := f.snapshot()
		assert.Len(t, starts, 1, "RetryNow cut a Retry-After wait")
		assert.NoError(t, r.stop())
	})
}

func TestRetryNowHonoursTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		budget, err := backoff.NewBudget(0.001, 1) // one retry, then refusals
		require.NoError(t, err)
		f := &fake{results: []error{errRefused, errRefused, errRefused}}
		o := exponential(time.Second, time.Hour)
		o.Budget = budget
		r := start(t, f, o)
		for range 10 {
			synctest.Wait()
			if st := r.Status(); st.State == health.Backoff && time.Until(st.NextAttempt) > 30*time.Minute {
				break // the Budget refused: Cap
			}
			time.Sleep(time.Until(r.Status().NextAttempt))
		}
		st := r.Status()
		require.Greater(t, time.Until(st.NextAttempt), 30*time.Minute, "the Budget refused a retry")
		before, _, _, _ := f.snapshot()
		r.RetryNow()
		time.Sleep(10 * time.Minute)
		starts, _, _, _ := f.snapshot()
		assert.Len(t, starts, len(before), "RetryNow cut the wait of a Budget's refusal")
		assert.NoError(t, r.stop())
	})
}

// A wait the backoff set, while a server's shorter hint rests the
// endpoint: RetryNow cuts it, but not before the hint has passed.
func TestRetryNowWaitsForTheEndpointsRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{backoff.RetryAfter(errRefused, 30*time.Second)}}
		r := start(t, f, exponential(time.Minute, time.Hour)) // the backoff's minute is longer than the hint
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State)
		require.GreaterOrEqual(t, time.Until(st.NextAttempt), time.Minute, "the backoff set the wait")
		r.RetryNow()
		time.Sleep(10 * time.Second)
		starts, _, _, _ := f.snapshot()
		assert.Len(t, starts, 1, "RetryNow cut a wait while the hint still rested the endpoint")
		r.untilConnected(t)
		starts, _, _, _ = f.snapshot()
		require.Len(t, starts, 2)
		assert.Equal(t, 30*time.Second, starts[1].Sub(starts[0]), "the attempt came when the hint ended, not after the backoff's minute")
		assert.NoError(t, r.stop())
	})
}
