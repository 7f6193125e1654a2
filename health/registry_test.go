package health_test

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
)

// fixed is a Source whose Status a test sets.
type fixed struct{ v atomic.Pointer[health.Status] }

func source(st health.State) *fixed {
	f := &fixed{}
	f.set(st, nil)
	return f
}

func (f *fixed) set(st health.State, err error) {
	f.v.Store(&health.Status{State: st, Err: err, Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
}
func (f *fixed) Status() health.Status { return *f.v.Load() }

func get(t *testing.T, h http.Handler, url string) (int, map[string]any, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
	return rec.Code, body, rec.Body.String()
}

func TestReadyFollowsCriticalSourcesOnly(t *testing.T) {
	var r health.Registry
	assert.True(t, r.Ready(), "an empty registry is ready")
	db, cache := source(health.Connecting), source(health.Backoff)
	r.Add("db", db, true)
	r.Add("cache", cache, false)
	assert.False(t, r.Ready())
	db.set(health.Connected, nil)
	assert.True(t, r.Ready(), "a non-critical source in Backoff does not make it unready")
	db.set(health.Backoff, nil)
	assert.False(t, r.Ready())
}

func TestLiveOnlyFailsOnCriticalFailed(t *testing.T) {
	var r health.Registry
	db, cache := source(health.Backoff), source(health.Failed)
	r.Add("db", db, true)
	r.Add("cache", cache, false)
	assert.True(t, r.Live())
	for _, st := range []health.State{health.Idle, health.Connecting, health.Connected, health.Backoff, health.Stopped} {
		db.set(st, nil)
		assert.True(t, r.Live(), "%v", st)
	}
	db.set(health.Failed, nil)
	assert.False(t, r.Live())
}

func TestReadyHandlerBodyAndVerbose(t *testing.T) {
	var r health.Registry
	db := source(health.Connected)
	r.Add("db", db, true)
	code, body, _ := get(t, r.ReadyHandler(), "/readyz")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ok", body["status"])
	src := body["sources"].([]any)[0].(map[string]any)
	assert.Equal(t, "db", src["name"])
	assert.Equal(t, "connected", src["state"])
	assert.Equal(t, true, src["critical"])

	db.set(health.Backoff, errors.New("connect postgres://app:hunter22@db/x: connection refused"))
	code, body, raw := get(t, r.ReadyHandler(), "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "unavailable", body["status"])
	assert.NotContains(t, raw, "refused", "no error text without ?verbose=1")

	code, _, raw = get(t, r.ReadyHandler(), "/readyz?verbose=1")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, raw, "connection refused")
	assert.Contains(t, raw, "app:xxxxx@db")
	assert.NotContains(t, raw, "hunter22")
}

func TestLiveHandler(t *testing.T) {
	var r health.Registry
	db := source(health.Backoff)
	r.Add("db", db, true)
	code, _, _ := get(t, r.LiveHandler(), "/livez")
	assert.Equal(t, http.StatusOK, code)
	db.set(health.Failed, errors.New("password authentication failed"))
	code, body, _ := get(t, r.LiveHandler(), "/livez")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "unavailable", body["status"])
}

func TestRegistryAddReplaceRemoveNil(t *testing.T) {
	var r health.Registry
	r.Add("a", source(health.Backoff), true)
	r.Add("a", source(health.Connected), true)
	es := r.Entries()
	require.Len(t, es, 1, "adding a name again replaces it")
	assert.Equal(t, health.Connected, es[0].Status.State)

	r.Add("nil", nil, true)
	assert.False(t, r.Ready(), "a nil critical source is never ready")
	es = r.Entries()
	require.Len(t, es, 2)
	assert.EqualError(t, es[1].Status.Err, "nil source")

	assert.True(t, r.Remove("nil"))
	assert.False(t, r.Remove("nil"))
	assert.True(t, r.Ready())
}

// TestVerboseBodySaysLastErrorAndWhen: a source that is connected again
// after a failure shows last_error beside last_failure, not an "error"
// that makes it look broken.
func TestVerboseBodySaysLastErrorAndWhen(t *testing.T) {
	var r health.Registry
	at := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	r.Add("feed", health.SourceFunc(func() health.Status {
		return health.Status{State: health.Connected, Err: errors.New("connection lost: EOF"), LastFailure: at}
	}), true)
	code, body, raw := get(t, r.ReadyHandler(), "/readyz?verbose=1")
	assert.Equal(t, http.StatusOK, code)
	src := body["sources"].([]any)[0].(map[string]any)
	assert.Equal(t, "connection lost: EOF", src["last_error"])
	assert.Equal(t, "2026-01-02T03:04:00Z", src["last_failure"])
	assert.NotContains(t, src, "error")
	_, _, raw = get(t, r.ReadyHandler(), "/readyz")
	assert.NotContains(t, raw, "last_error", "only with ?verbose=1")
	assert.NotContains(t, raw, "last_failure")
}
