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

// cutters are the two ways to cut a Backoff wait.
var cutters = map[string]func(*running){"RetryNow": (*running).retryNow, "ReportSuccess": (*running).proven}

func (r *running) retryNow() { r.RetryNow() }
func (r *running) proven()   { r.ReportSuccess() }

// A RetryNow or a ReportSuccess while Connected (or connecting) does nothing: it
// does not linger to cut the next outage's wait.
func TestRetryNowOutsideBackoffDoesNothing(t *testing.T) {
	for name, cut := range cutters {
		synctest.Test(t, func(t *testing.T) {
			f := &fake{}
			r := start(t, f, exponential(time.Minute, time.Hour))
			r.untilConnected(t)
			cut(r)
			synctest.Wait()
			require.Equal(t, health.Connected, r.Status().State, "%s broke a live connection", name)
			f.last().broken <- errRefused // flapping (up for no time): the backoff's wait, a minute
			synctest.Wait()
			st := r.Status()
			require.Equal(t, health.Backoff, st.State)
			require.GreaterOrEqual(t, time.Until(st.NextAttempt), time.Minute)
			assert.ErrorContains(t, st.Err, errRefused.Error(), "the loss's reason is the connection's")
			time.Sleep(30 * time.Second)
			assert.Empty(t, attemptsAfter(f), "a %s made while Connected cut a later wait", name)
			assert.NoError(t, r.stop())
		})
	}
}

// Neither RetryNow nor ReportSuccess cuts the wait of a Budget's refusal.
func TestRetryNowHonoursTheBudget(t *testing.T) {
	for name, cut := range cutters {
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
			before := attemptsAfter(f)
			cut(r)
			time.Sleep(10 * time.Minute)
			assert.Equal(t, before, attemptsAfter(f), "%s cut the wait of a Budget's refusal", name)
			assert.NoError(t, r.stop())
		})
	}
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
