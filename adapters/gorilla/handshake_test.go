package gorilla_test

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// internalBody is what a refusing server's body says; it must stay out of
// Status and errors.
const internalBody = "upstream db-7.internal refused: pool exhausted"

// refusals is a server that answers every handshake with code and, when
// retryAfter is set, a Retry-After header. It records when it last
// refused, before answering.
type refusals struct {
	*server
	mu   sync.Mutex
	last time.Time
}

func refusingServer(t *testing.T, code int, retryAfter string) *refusals {
	r := &refusals{}
	r.server = httpServer(t, func(s *server, w http.ResponseWriter, _ *http.Request) {
		r.mu.Lock()
		r.last = time.Now()
		r.mu.Unlock()
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		http.Error(w, internalBody, code)
	})
	return r
}

func (r *refusals) lastRefusal() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// firstWait runs a client against a refusing server and returns the wait
// it planned after the refusal (NextAttempt minus when the server refused)
// and the handshake error.
func firstWait(t *testing.T, code int, retryAfter string, maxHint time.Duration) (time.Duration, *gorilla.HandshakeError) {
	t.Helper()
	srv := refusingServer(t, code, retryAfter)
	o := testOptions()
	o.Supervisor.MaxHint = maxHint
	c := run(t, srv.url("/feed"), o, false)
	st := testkit.WaitStatus(t, c, 5*time.Second, "backoff", testkit.InState(health.Backoff))
	var he *gorilla.HandshakeError
	require.ErrorAs(t, st.Err, &he)
	assert.Equal(t, code, he.StatusCode)
	assert.NotContains(t, st.Err.Error(), "db-7", "the response body stays out of Status")
	require.NoError(t, c.stop())
	return st.NextAttempt.Sub(srv.lastRefusal()), he
}

func TestHandshakeRetryAfterSecondsIsAHint(t *testing.T) {
	for _, code := range []int{http.StatusServiceUnavailable, http.StatusTooManyRequests} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			wait, he := firstWait(t, code, "7", 0)
			t.Logf("planned wait after %d with Retry-After: 7: %v", code, wait)
			assert.Equal(t, 7*time.Second, he.RetryAfter)
			assert.GreaterOrEqual(t, wait, 7*time.Second)
			assert.Less(t, wait, 8*time.Second)
		})
	}
}

func TestHandshakeRetryAfterHTTPDateIsAHint(t *testing.T) {
	wait, _ := firstWait(t, http.StatusServiceUnavailable, time.Now().Add(30*time.Second).UTC().Format(http.TimeFormat), 0)
	assert.GreaterOrEqual(t, wait, 28*time.Second) // the date has a resolution of one second
	assert.LessOrEqual(t, wait, 30*time.Second)
}

func TestHandshakeRetryAfterUnusableIsIgnored(t *testing.T) {
	for name, v := range map[string]string{
		"garbage":      "abc",
		"negative":     "-5",
		"fraction":     "1.5",
		"date in past": time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat),
	} {
		t.Run(name, func(t *testing.T) {
			wait, he := firstWait(t, http.StatusServiceUnavailable, v, 0)
			assert.Zero(t, he.RetryAfter)
			assert.Less(t, wait, time.Second, "the backoff's own 20ms, no hint")
		})
	}
}

func TestHandshakeRetryAfterHugeIsClampedToMaxHint(t *testing.T) {
	tenYears := "315360000"
	t.Run("MaxHint 3s", func(t *testing.T) {
		wait, he := firstWait(t, http.StatusServiceUnavailable, tenYears, 3*time.Second)
		assert.GreaterOrEqual(t, wait, 3*time.Second)
		assert.Less(t, wait, 4*time.Second)
		assert.Equal(t, 3*time.Second, he.RetryAfter, "the error shows what is honored")
		assert.Contains(t, he.Error(), "(Retry-After 3s)")
	})
	t.Run("default MaxHint", func(t *testing.T) {
		wait, he := firstWait(t, http.StatusServiceUnavailable, tenYears, 0)
		assert.GreaterOrEqual(t, wait, supervisor.DefaultMaxHint)
		assert.Less(t, wait, supervisor.DefaultMaxHint+time.Second)
		assert.Contains(t, he.Error(), "(Retry-After 5m0s)", "not the raw 87600h0m0s")
	})
}

func TestHandshakeAuthAndNotFoundFailAfterOneAttempt(t *testing.T) {
	for _, code := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			srv := refusingServer(t, code, "")
			c := run(t, srv.url("/feed"), testOptions(), false)
			st := testkit.WaitStatus(t, c, 5*time.Second, "failed", testkit.InState(health.Failed))
			<-c.done // Run returned by itself
			err := c.stop()

			assert.ErrorIs(t, err, supervisor.ErrFailed)
			var he *gorilla.HandshakeError
			require.True(t, errors.As(err, &he), "Run's error: %v", err)
			assert.Equal(t, code, he.StatusCode)
			assert.Equal(t, 1, st.Attempt)
			assert.Equal(t, int64(1), srv.handshakes.Load(), "exactly one attempt")
			assert.NotContains(t, err.Error(), "db-7")
		})
	}
}

// TestHandshakeErrorSaysTheURLOnce: with the default Name (the url) the
// error does not repeat the url; with a Name of the program's it names it.
func TestHandshakeErrorSaysTheURLOnce(t *testing.T) {
	srv := refusingServer(t, http.StatusUnauthorized, "")
	url := srv.url("/feed")
	for _, name := range []string{"", "feed"} {
		o := testOptions()
		o.Supervisor.Name = name
		c := run(t, url, o, false)
		<-c.done
		err := c.stop()
		require.Error(t, err)
		if name != "" {
			assert.Contains(t, err.Error(), "redial feed: ")
		}
		assert.Equal(t, 1, strings.Count(err.Error(), url), "Name %q: %v", name, err)
	}
}

// A server that answers 101 without a valid upgrade (no
// Sec-WebSocket-Accept) is an ordinary failure, not a HandshakeError.
func TestHandshakeBadUpgradeIsRetried(t *testing.T) {
	srv := httpServer(t, func(_ *server, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Connection", "Upgrade")
		w.WriteHeader(http.StatusSwitchingProtocols)
	})
	c := run(t, srv.url("/feed"), testOptions(), false)
	st := testkit.WaitStatus(t, c, 5*time.Second, "backoff", testkit.InState(health.Backoff))
	var he *gorilla.HandshakeError
	assert.False(t, errors.As(st.Err, &he), "%v", st.Err)
	assert.Contains(t, st.Err.Error(), "101 without a valid WebSocket upgrade")
	testkit.WaitStatus(t, c, 5*time.Second, "a second attempt", func(st health.Status) bool { return st.Attempt >= 2 })
	require.NoError(t, c.stop())
}
