package httpcore_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// firstWait runs a supervisor against a server that refuses with code and
// Retry-After retryAfter, and returns the wait it planned after the
// refusal (NextAttempt minus when the server refused) and the refusal.
func firstWait(t *testing.T, code int, retryAfter string, maxHint time.Duration) (time.Duration, *httpcore.HandshakeError) {
	t.Helper()
	srv := serve(t, refuse(code, "Retry-After", retryAfter))
	o := fast()
	o.MaxHint = maxHint
	s := mustLines(t, srv.URL, httpcore.Config{}, o)
	stop := testkit.Run(t, s)
	st := testkit.WaitStatus(t, s, 5*time.Second, "backoff", testkit.InState(health.Backoff))
	he, ok := errors.AsType[*httpcore.HandshakeError](st.Err)
	require.True(t, ok, "%v", st.Err)
	assert.Equal(t, code, he.StatusCode)
	assert.NotContains(t, st.Err.Error(), "db-7", "the response body stays out of Status")
	require.NoError(t, stop())
	_, at := srv.lastRequest()
	return st.NextAttempt.Sub(at), he
}

func TestRetryAfterSecondsIsAHint(t *testing.T) {
	for _, code := range []int{http.StatusServiceUnavailable, http.StatusTooManyRequests} {
		wait, he := firstWait(t, code, "7", 0)
		assert.Equal(t, 7*time.Second, he.RetryAfter)
		assert.GreaterOrEqual(t, wait, 7*time.Second)
		assert.Less(t, wait, 8*time.Second)
	}
}

func TestRetryAfterHTTPDateIsAHint(t *testing.T) {
	wait, _ := firstWait(t, http.StatusServiceUnavailable, time.Now().Add(30*time.Second).UTC().Format(http.TimeFormat), 0)
	assert.GreaterOrEqual(t, wait, 28*time.Second) // the date has a resolution of one second
	assert.Less(t, wait, 31*time.Second)           // and the client spreads over it
}

func TestRetryAfterUnusableIsIgnored(t *testing.T) {
	for _, v := range []string{"abc", "-5", "1.5", time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)} {
		wait, he := firstWait(t, http.StatusServiceUnavailable, v, 0)
		assert.Zero(t, he.RetryAfter, v)
		assert.Less(t, wait, time.Second, "%s: the backoff's own 20ms, no hint", v)
	}
}

func TestRetryAfterHugeIsClampedToMaxHint(t *testing.T) {
	tenYears := "315360000"
	wait, he := firstWait(t, http.StatusServiceUnavailable, tenYears, 3*time.Second)
	assert.GreaterOrEqual(t, wait, 3*time.Second)
	assert.Less(t, wait, 4*time.Second)
	assert.Equal(t, 3*time.Second, he.RetryAfter, "the error shows what is honored")
	assert.Contains(t, he.Error(), "(Retry-After 3s)")
	wait, he = firstWait(t, http.StatusServiceUnavailable, tenYears, 0)
	assert.GreaterOrEqual(t, wait, backoff.DefaultMaxHint)
	assert.Less(t, wait, backoff.DefaultMaxHint+time.Second)
	assert.Contains(t, he.Error(), "(Retry-After 5m0s)", "not the raw 87600h0m0s")
}

func TestFinalAnswersFailAfterOneAttempt(t *testing.T) {
	for _, code := range []int{http.StatusNoContent, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound} {
		srv := serve(t, refuse(code))
		s := mustLines(t, srv.URL, httpcore.Config{}, fast())
		err := s.Run(t.Context())
		assert.ErrorIs(t, err, supervisor.ErrFailed)
		he, ok := errors.AsType[*httpcore.HandshakeError](err)
		require.True(t, ok, "Run's error: %v", err)
		assert.Equal(t, code, he.StatusCode)
		assert.Equal(t, int64(1), srv.requests.Load(), "%d: exactly one attempt", code)
		assert.NotContains(t, err.Error(), "db-7")
	}
}

// A 200 that is not the stream asked for says what came, masked and cut.
func TestNotTheStreamSaysItsContentType(t *testing.T) {
	srv := serve(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; token="+r.URL.Query().Get("token")+"; "+strings.Repeat("x", 200))
		_, _ = w.Write([]byte("<html>upstream db-7.internal</html>"))
	})
	s := mustLines(t, srv.URL+"/x?token=SECRET-123", httpcore.Config{}, fast())
	err := s.Run(t.Context())
	he, ok := errors.AsType[*httpcore.HandshakeError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, 200, he.StatusCode)
	assert.True(t, strings.HasPrefix(he.ContentType, "text/html; token=xxxxx; xxx"), he.ContentType)
	assert.Len(t, he.ContentType, 103)
	assert.Contains(t, err.Error(), ", not text/plain")
	assert.NotContains(t, err.Error(), "SECRET-123")
	assert.NotContains(t, err.Error(), "db-7")
}

// With the default Name (the url) an error does not repeat the url; with a
// Name of the program's, or several endpoints, it names the endpoint.
func TestErrorsSayTheURLOnce(t *testing.T) {
	srv := serve(t, refuse(http.StatusUnauthorized))
	url := srv.URL + "/feed"
	for _, name := range []string{"", "feed"} {
		o := fast()
		o.Name = name
		err := mustLines(t, url, httpcore.Config{}, o).Run(t.Context())
		require.Error(t, err)
		if name != "" {
			assert.Contains(t, err.Error(), `get "`+url+`": server answered 401`)
		}
		assert.Equal(t, 1, strings.Count(err.Error(), url), "Name %q: %v", name, err)
	}
}
