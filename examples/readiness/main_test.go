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
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
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

// TestProbesFollowTheUpstreams stops and starts the critical feed and the
// non-critical cache and reads the probes and metrics after each change.
func TestProbesFollowTheUpstreams(t *testing.T) {
	var out testkit.Buffer
	a, err := start(context.Background(), &out, "")
	require.NoError(t, err)
	defer a.stop()
	testkit.WaitStatus(t, a.feed, 10*time.Second, "connected", testkit.InState(health.Connected))
	testkit.WaitStatus(t, a.cache, 10*time.Second, "connected", testkit.InState(health.Connected))
	code, _ := get(t, a, "/readyz")
	assert.Equal(t, http.StatusOK, code)

	post(t, a, "/upstream/feed/stop")
	testkit.WaitStatus(t, a.feed, 10*time.Second, "the loss", func(st health.Status) bool { return st.State != health.Connected })
	code, body := get(t, a, "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code, body)
	code, _ = get(t, a, "/livez")
	assert.Equal(t, http.StatusOK, code, "a feed that is retrying is still live")
	// The failed attempt is logged, naming the feed's URL.
	out.WaitFor(t, `level=WARN msg="attempt failed" name=`+a.feed.Name()+` state=backoff consecutive_failures=1 `, 10*time.Second)

	post(t, a, "/upstream/feed/start")
	testkit.WaitStatus(t, a.feed, 10*time.Second, "connected", testkit.InState(health.Connected))
	code, _ = get(t, a, "/readyz")
	assert.Equal(t, http.StatusOK, code)

	post(t, a, "/upstream/cache/stop")
	testkit.WaitStatus(t, a.cache, 10*time.Second, "the loss", func(st health.Status) bool { return st.State != health.Connected })
	code, _ = get(t, a, "/readyz")
	assert.Equal(t, http.StatusOK, code, "the cache is not critical")
	_, metrics := get(t, a, "/metrics")
	assert.Contains(t, metrics, `redial_up{name="cache"} 0`)
	assert.Contains(t, metrics, `redial_up{name="feed"} 1`)
	assert.Contains(t, metrics, `redial_connects_total{name="feed"} 2`)
}

// TestExitsWhenTheDatabaseRefusesForGood gives the pool a wrong password:
// the critical pool gives up (28P01), so the command exits within 5s,
// non-zero, with one line that says why.
func TestExitsWhenTheDatabaseRefusesForGood(t *testing.T) {
	pg := pgtest.Start(t, pgtest.Options{})
	dsn := pg.URL("postgres", "wrong-password", "postgres")
	out := testkit.ExitsForGood(t, run, "password authentication failed", "-addr", "127.0.0.1:0", "-dsn", dsn)
	assert.NotContains(t, out, "wrong-password")
	assert.NotContains(t, out, `msg="attempt failed"`, "a refusal for good is not retried")
	assert.Contains(t, out, `level=ERROR msg="gave up" name="postgres pool postgres://postgres@`+pg.Addr()+`/postgres" state=failed `)
}
