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

// A wait that a server's hint set: RetryNow leaves it, ReportSuccess ends it (the
// proof is newer).
func TestOnlyProvenCutsAHintsWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{backoff.RetryAfter(errRefused, 2*time.Hour)}}
		o := exponential(time.Minute, time.Hour)
		o.MaxHint = 3 * time.Hour
		r := start(t, f, o)
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State)
		require.GreaterOrEqual(t, time.Until(st.NextAttempt), 2*time.Hour, "the hint set the wait")
		r.RetryNow()
		time.Sleep(time.Hour)
		require.Empty(t, attemptsAfter(f), "RetryNow cut a hint's wait")
		r.ReportSuccess()
		r.ReportSuccess() // twice is once
		synctest.Wait()
		assert.Equal(t, health.Connected, r.Status().State)
		assert.Equal(t, []time.Duration{time.Hour}, attemptsAfter(f), "the attempt came with ReportSuccess, not after the hint")
		assert.NoError(t, r.stop())
	})
}

// A wait the backoff set while a server's shorter hint rests the
// endpoint: RetryNow waits for the rest, ReportSuccess ends it, also when it
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
			r.ReportSuccess()
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

// ReportSuccess ends one wait: when the attempt it brought fails within the
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
		r.ReportSuccess()
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State)
		require.Equal(t, 2, st.ConsecutiveFailures)
		assert.Equal(t, 59*time.Minute, time.Until(st.NextAttempt), "the hint's rest, not the backoff's second")
		assert.NoError(t, r.stop())
	})
}
