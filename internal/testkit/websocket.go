package testkit

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
)

// The checks below are rules both WebSocket adapters (websocket, gorilla)
// keep, each tested with the adapter's own server library.

// AssertResubscribes checks, for c, a client of s whose OnConnect sends
// "subscribe prices": it subscribes on its first connection, finds s
// stopped (a killed process), and subscribes again once s restarted.
func (s *HTTPServer[P]) AssertResubscribes(t testing.TB, c Subscriber) {
	t.Helper()
	WaitStatus(t, c, 5*time.Second, "first connection", Connected(1))
	assert.Equal(t, "subscribe prices", s.WaitSubscribe(t, 5*time.Second))
	s.Stop() // mid-stream: the client's read sees the connection drop
	st := WaitStatus(t, c, 5*time.Second, "the loss", func(st health.Status) bool { return st.State != health.Connected })
	t.Logf("after the stop: %s, %v", st.State, st.Err)
	s.Restart()
	WaitStatus(t, c, 5*time.Second, "second connection", Connected(2))
	assert.Equal(t, "subscribe prices", s.WaitSubscribe(t, 5*time.Second))
	assert.Equal(t, []string{"subscribe prices", "subscribe prices"}, s.Subscribes())
}

// AssertWriteOnlyReaders checks, for c, a WriteOnly client of s: the
// adapter reads on one goroutine per live connection, across a
// reconnection, and each has ended by the time Close returns, so none is
// left when Run returns. Checked at once, without the retries goleak
// allows.
func AssertWriteOnlyReaders[P, C comparable](t testing.TB, s *HTTPServer[P], c *Client[C]) {
	t.Helper()
	WaitStatus(t, c, 5*time.Second, "connection", Connected(1))
	s.Stop() // the adapter's reader sees the drop
	WaitStatus(t, c, 5*time.Second, "the loss", func(st health.Status) bool { return st.State != health.Connected })
	s.Restart()
	WaitStatus(t, c, 5*time.Second, "reconnection", Connected(2))
	assert.Equal(t, 1, WriteOnlyReaders(), "one reader goroutine for the one live connection")
	require.NoError(t, c.Stop())
	assert.Zero(t, WriteOnlyReaders(), "a reader goroutine outlived Run")
}

// AssertAttemptTimesOut checks, for c, started at began with
// connectTimeout against a server that never answers the handshake: the
// first attempt ends, in Backoff, ConnectTimeout after it began.
func AssertAttemptTimesOut(t testing.TB, c Subscriber, began time.Time, connectTimeout time.Duration) {
	t.Helper()
	st := WaitStatus(t, c, 5*time.Second, "the attempt to fail", InState(health.Backoff))
	took := st.Since.Sub(began)
	t.Logf("attempt ended after %v (ConnectTimeout %v): %v", took, connectTimeout, st.Err)
	assert.GreaterOrEqual(t, took, connectTimeout)
	assert.Less(t, took, connectTimeout+200*time.Millisecond)
	assert.ErrorIs(t, st.Err, context.DeadlineExceeded)
	assert.Contains(t, st.Err.Error(), fmt.Sprintf("timed out after %v", connectTimeout))
	assert.Equal(t, 1, st.Attempt)
}

// WriteOnlyReaders counts the goroutines the WebSocket adapters' Connect
// started: the WriteOnly readers.
func WriteOnlyReaders() int {
	return strings.Count(Stacks(), "created by github.com/redial-go/redial/internal/httpcore.(*State).ReadForWriter")
}
