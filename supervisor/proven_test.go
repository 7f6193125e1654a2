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

// attemptsAfter returns the virtual time between the first attempt and
// each later one.
func attemptsAfter(f *fake) []time.Duration {
	starts, _, _, _ := f.snapshot()
	out := make([]time.Duration, 0, len(starts))
	for _, s := range starts[1:] {
		out = append(out, s.Sub(starts[0]))
	}
	return out
}

// Proven ends a wait that a server's hint set: the proof is newer.
func TestProvenCutsAHintsWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{backoff.RetryAfter(errRefused, 2*time.Hour)}}
		o := exponential(time.Minute, time.Hour)
		o.MaxHint = 3 * time.Hour
		r := start(t, f, o)
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State)
		require.GreaterOrEqual(t, time.Until(st.NextAttempt), 2*time.Hour, "the hint set the wait")
		time.Sleep(time.Second)
		r.RetryNow()
		synctest.Wait()
		require.Equal(t, health.Backoff, r.Status().State, "RetryNow cut a hint's wait")
		r.Proven()
		r.Proven() // twice is once
		synctest.Wait()
		assert.Equal(t, health.Connected, r.Status().State)
		assert.Equal(t, []time.Duration{time.Second}, attemptsAfter(f), "the attempt came with Proven, not after the hint")
		assert.NoError(t, r.stop())
	})
}

// A wait the backoff set while a server's shorter hint rests the
// endpoint: RetryNow waits for the rest, Proven ends it, also when it
// comes while RetryNow waits for it.
func TestProvenEndsTheEndpointsRest(t *testing.T) {
	for _, retryFirst := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			f := &fake{results: []error{backoff.RetryAfter(errRefused, 30*time.Second)}}
			r := start(t, f, exponential(time.Minute, time.Hour)) // the backoff's minute is longer than the hint
			synctest.Wait()
			require.Equal(t, health.Backoff, r.Status().State)
			if retryFirst {
				r.RetryNow()
				time.Sleep(time.Second)
				require.Empty(t, attemptsAfter(f), "RetryNow cut a wait while the hint still rested the endpoint")
			}
			r.Proven()
			synctest.Wait()
			assert.Equal(t, health.Connected, r.Status().State)
			want := time.Duration(0)
			if retryFirst {
				want = time.Second
			}
			assert.Equal(t, []time.Duration{want}, attemptsAfter(f), "RetryNow first: %v", retryFirst)
			assert.NoError(t, r.stop())
		})
	}
}

func TestProvenHonoursTheBudget(t *testing.T) {
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
		require.Greater(t, time.Until(r.Status().NextAttempt), 30*time.Minute, "the Budget refused a retry")
		before := attemptsAfter(f)
		r.Proven()
		time.Sleep(10 * time.Minute)
		assert.Equal(t, before, attemptsAfter(f), "Proven cut the wait of a Budget's refusal")
		assert.NoError(t, r.stop())
	})
}

// A Proven while Connected does nothing, and does not linger to cut the
// next outage's wait.
func TestProvenOutsideBackoffDoesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		o := exponential(time.Minute, time.Hour)
		o.MaxHint = 2 * time.Hour
		r := start(t, f, o)
		r.untilConnected(t)
		r.Proven()
		synctest.Wait()
		require.Equal(t, health.Connected, r.Status().State, "Proven broke a live connection")
		f.last().broken <- backoff.RetryAfter(errRefused, time.Hour) // a hint's wait
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State)
		require.GreaterOrEqual(t, time.Until(st.NextAttempt), time.Hour)
		time.Sleep(30 * time.Minute)
		assert.Empty(t, attemptsAfter(f), "a Proven made while Connected cut a later wait")
		assert.NoError(t, r.stop())
	})
}

// Proven ends one wait: when the attempt it brought fails within the
// server's hint, the hint rests the endpoint again (the server may be
// full again).
func TestProvenEndsOneWaitOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{backoff.RetryAfter(errRefused, time.Hour), errRefused}}
		o := exponential(time.Second, time.Hour)
		o.MaxHint = 2 * time.Hour
		r := start(t, f, o)
		synctest.Wait()
		time.Sleep(time.Minute)
		r.Proven()
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State)
		require.Equal(t, 2, st.Attempt)
		assert.Equal(t, 59*time.Minute, time.Until(st.NextAttempt), "the hint's rest, not the backoff's second")
		assert.NoError(t, r.stop())
	})
}
