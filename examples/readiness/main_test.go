package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/health"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func get(t *testing.T, a *app, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	a.mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	body, _ := io.ReadAll(rec.Body)
	return rec.Code, string(body)
}

func post(t *testing.T, a *app, path string) {
	t.Helper()
	rec := httptest.NewRecorder()
	a.mux.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}

// waitState waits, on the health channel, until src's state is (or is not) want.
func waitState(t *testing.T, src interface {
	Subscribe() (<-chan health.Status, func())
}, want health.State, is bool) {
	t.Helper()
	ch, unsub := src.Subscribe()
	defer unsub()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case st := <-ch:
			if (st.State == want) == is {
				return
			}
		case <-timeout:
			t.Fatalf("timed out waiting for state %v (is=%v)", want, is)
		}
	}
}

// TestProbesFollowTheUpstreams stops and starts the critical feed and the
// non-critical cache and reads the probes and metrics after each change.
func TestProbesFollowTheUpstreams(t *testing.T) {
	a, err := start(context.Background(), "")
	require.NoError(t, err)
	defer a.stop()
	waitState(t, a.feed, health.Connected, true)
	waitState(t, a.cache, health.Connected, true)
	code, _ := get(t, a, "/readyz")
	assert.Equal(t, http.StatusOK, code)

	post(t, a, "/upstream/feed/stop")
	waitState(t, a.feed, health.Connected, false)
	code, body := get(t, a, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code, body)
	code, _ = get(t, a, "/livez")
	assert.Equal(t, http.StatusOK, code, "a feed that is retrying is still live")

	post(t, a, "/upstream/feed/start")
	waitState(t, a.feed, health.Connected, true)
	code, _ = get(t, a, "/readyz")
	assert.Equal(t, http.StatusOK, code)

	post(t, a, "/upstream/cache/stop")
	waitState(t, a.cache, health.Connected, false)
	code, _ = get(t, a, "/readyz")
	assert.Equal(t, http.StatusOK, code, "the cache is not critical")
	_, metrics := get(t, a, "/metrics")
	assert.Contains(t, metrics, `redial_up{name="cache"} 0`)
	assert.Contains(t, metrics, `redial_up{name="feed"} 1`)
	assert.Contains(t, metrics, `redial_connects_total{name="feed"} 2`)
}
