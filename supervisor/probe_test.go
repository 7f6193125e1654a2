package supervisor_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
)

func probe(h http.Handler) int {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	return rec.Code
}

// TestProbesFollowTheSupervisor checks readiness and liveness at every
// Status the supervisor publishes: readiness is 503 from the first status
// change after a critical connection is lost and 200 from the one that says
// it is back; liveness is 503 only once it has Failed.
func TestProbesFollowTheSupervisor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{nil, errRefused, nil, backoff.Permanent(errors.New("401"))}}
		r := start(t, f, exponential(time.Second, time.Minute))
		var reg health.Registry
		reg.Add("feed", r, health.SourceOptions{Critical: true})
		reg.Add("optional", health.SourceFunc(func() health.Status { return health.Status{State: health.Backoff} }), health.SourceOptions{})
		ready, live := healthhttp.ReadyHandler(&reg), healthhttp.LiveHandler(&reg)

		ch, unsub := r.Subscribe()
		defer unsub()
		check := func() health.State {
			synctest.Wait()
			st := <-ch // the newest published Status
			wantReady := http.StatusServiceUnavailable
			if st.State == health.Connected {
				wantReady = http.StatusOK
			}
			wantLive := http.StatusOK
			if st.State == health.Failed {
				wantLive = http.StatusServiceUnavailable
			}
			assert.Equal(t, wantReady, probe(ready), "ready in %v", st.State)
			assert.Equal(t, wantLive, probe(live), "live in %v", st.State)
			return st.State
		}
		require.Equal(t, health.Connected, check())
		f.last().broken <- errors.New("reset")
		require.Equal(t, health.Backoff, check(), "one status change after the loss")
		time.Sleep(time.Until(r.Status().NextAttempt))
		require.Equal(t, health.Backoff, check(), "the retry failed")
		time.Sleep(time.Until(r.Status().NextAttempt))
		require.Equal(t, health.Connected, check())
		f.last().broken <- errors.New("reset")
		check()
		time.Sleep(time.Until(r.Status().NextAttempt))
		require.Equal(t, health.Failed, check())
		<-r.done
		r.cancel()
	})
}
