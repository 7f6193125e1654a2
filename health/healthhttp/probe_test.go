package healthhttp_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
)

// settable adds a source to r whose Status the test sets.
func settable(r *health.Registry, name string, critical bool) func(health.State, error) {
	var v atomic.Pointer[health.Status]
	set := func(st health.State, err error) {
		v.Store(&health.Status{State: st, Err: err, Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	}
	set(health.Idle, nil)
	r.Add(name, health.SourceFunc(func() health.Status { return *v.Load() }), health.SourceOptions{Critical: critical})
	return set
}

func get(t *testing.T, h http.Handler, url string) (int, map[string]any, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
	return rec.Code, body, rec.Body.String()
}

func TestReadyHandlerBodyAndVerbose(t *testing.T) {
	var r health.Registry
	db := settable(&r, "db", true)
	db(health.Connected, nil)
	settable(&r, "cache", false) // idle, not critical
	ready := healthhttp.ReadyHandler(&r)
	code, body, _ := get(t, ready, "/readyz")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ok", body["status"])
	src := body["sources"].([]any)[0].(map[string]any)
	assert.Equal(t, "db", src["name"])
	assert.Equal(t, "connected", src["state"])
	assert.Equal(t, true, src["critical"])

	db(health.Backoff, errors.New("connect postgres://app:hunter22@db/x: connection refused"))
	code, body, raw := get(t, ready, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "unavailable", body["status"])
	assert.NotContains(t, raw, "refused", "no error text without ?verbose=1")

	code, _, raw = get(t, ready, "/readyz?verbose=1")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, raw, "connection refused")
	assert.Contains(t, raw, "app:xxxxx@db")
	assert.NotContains(t, raw, "hunter22")
}

func TestLiveHandler(t *testing.T) {
	var r health.Registry
	db := settable(&r, "db", true)
	db(health.Backoff, nil)
	live := healthhttp.LiveHandler(&r)
	code, _, _ := get(t, live, "/livez")
	assert.Equal(t, http.StatusOK, code, "a source that is retrying is live")
	db(health.Failed, errors.New("password authentication failed"))
	code, body, _ := get(t, live, "/livez")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "unavailable", body["status"])
}

// TestVerboseBodySaysLastErrorAndWhen: a source that is connected again
// after a failure shows last_error beside last_failure, not an "error"
// that makes it look broken.
func TestVerboseBodySaysLastErrorAndWhen(t *testing.T) {
	var r health.Registry
	at := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	r.Add("feed", health.SourceFunc(func() health.Status {
		return health.Status{State: health.Connected, Err: errors.New("connection lost: EOF"), LastFailure: at}
	}), health.SourceOptions{Critical: true})
	code, body, _ := get(t, healthhttp.ReadyHandler(&r), "/readyz?verbose=1")
	assert.Equal(t, http.StatusOK, code)
	src := body["sources"].([]any)[0].(map[string]any)
	assert.Equal(t, "connection lost: EOF", src["last_error"])
	assert.Equal(t, "2026-01-02T03:04:00Z", src["last_failure"])
	assert.NotContains(t, src, "error")
	_, _, raw := get(t, healthhttp.ReadyHandler(&r), "/readyz")
	assert.NotContains(t, raw, "last_error", "only with ?verbose=1")
	assert.NotContains(t, raw, "last_failure")
}

// TestProbeBodySaysLag: a Connected feed whose program is behind shows its
// lag; over its MaxLag it is lagging and the program not ready.
func TestProbeBodySaysLag(t *testing.T) {
	var r health.Registry
	r.Add("feed", lagSource{health.Lag{Waiting: 3677, Oldest: 183500 * time.Millisecond}}, health.SourceOptions{Critical: true, MaxLag: 30 * time.Second})
	r.Add("db", health.SourceFunc(func() health.Status { return health.Status{State: health.Connected} }), health.SourceOptions{Critical: true})
	code, body, _ := get(t, healthhttp.ReadyHandler(&r), "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	srcs := body["sources"].([]any)
	feed, db := srcs[0].(map[string]any), srcs[1].(map[string]any)
	assert.Equal(t, "connected", feed["state"])
	assert.Equal(t, map[string]any{"waiting": 3677.0, "oldest_seconds": 183.5}, feed["lag"])
	assert.Equal(t, true, feed["lagging"])
	assert.NotContains(t, db, "lag", "nothing waits")
	assert.NotContains(t, db, "lagging")
	code, _, _ = get(t, healthhttp.LiveHandler(&r), "/livez")
	assert.Equal(t, http.StatusOK, code, "lag is no reason to restart")
}

// lagSource is a Connected LagSource.
type lagSource struct{ lag health.Lag }

func (lagSource) Status() health.Status { return health.Status{State: health.Connected} }
func (s lagSource) Lag() health.Lag     { return s.lag }
