package sse_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/sse"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// failedAtOnce checks that c gave up after exactly one attempt, that its
// Events loop ended and that Run's error wraps supervisor.ErrFailed, and
// returns that error.
func failedAtOnce(t *testing.T, c *client, srv *server) error {
	t.Helper()
	st := testkit.WaitStatus(t, c, 5*time.Second, "failed", testkit.InState(health.Failed))
	assert.Equal(t, uint64(1), st.Failures, "one attempt")
	assert.Equal(t, 1, srv.count(), "one request")
	assert.Empty(t, c.loopEnds(t, 5*time.Second), "the Events loop ends, yielding nothing")
	<-c.Done()
	err := c.Err()
	require.Error(t, err)
	assert.ErrorIs(t, err, supervisor.ErrFailed)
	assert.Equal(t, err, c.stop(), "Run's error")
	var re *sse.HandshakeError
	assert.True(t, errors.As(err, &re), "a HandshakeError: %v", err)
	return err
}

// TestNoContentStopsForGood: 204 is the server's "do not reconnect".
func TestNoContentStopsForGood(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusNoContent) })
	c := start(t, srv.URL+"/events", testOptions(), nil)
	err := failedAtOnce(t, c, srv)
	assert.EqualError(t, err, "redial feed: gave up: connect: get \""+srv.URL+"/events\": server answered 204 No Content: the server ended the stream for good")
}

// TestNotAnEventStreamFails: a 200 with an HTML page is a wrong url, said
// clearly, with the type that came.
func TestNotAnEventStreamFails(t *testing.T) {
	for ct, want := range map[string]string{
		"text/html; charset=utf-8": `server answered 200 OK with Content-Type "text/html; charset=utf-8", not text/event-stream`,
		"":                         `server answered 200 OK with no Content-Type, not text/event-stream`,
	} {
		t.Run(ct, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header()["Content-Type"] = []string{ct}
				_, _ = w.Write([]byte("<html>login</html>"))
			})
			c := start(t, srv.URL+"/events", testOptions(), nil)
			err := failedAtOnce(t, c, srv)
			assert.ErrorContains(t, err, want)
			assert.NotContains(t, err.Error(), "login", "the body is not read")
		})
	}
	t.Run("parameters and case", func(t *testing.T) {
		srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Content-Type", "Text/Event-Stream; charset=utf-8")
			w.WriteHeader(http.StatusOK)
			send(w, "1", "ok")
			<-r.Context().Done()
		})
		c := start(t, srv.URL+"/events", testOptions(), nil)
		assert.Equal(t, "ok", c.next(t, 5*time.Second).ev.Data, "an event stream, whatever the case and parameters")
		require.NoError(t, c.stop())
	})
}
