package gorilla_test

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

// A server that accepts the TCP connection and never answers the
// handshake: the first attempt ends, in Backoff, ConnectTimeout after it
// began. (The same through toxiproxy latency is in
// internal/e2e/adapters/gorilla.)
func TestHandshakeNeverAnsweredEndsAtConnectTimeout(t *testing.T) {
	const connectTimeout = 300 * time.Millisecond
	o := testOptions()
	o.Supervisor.ConnectTimeout = connectTimeout
	began := time.Now() // the first attempt is immediate
	c := run(t, "ws://"+silentServer(t)+"/feed", o, true)
	st := testkit.WaitStatus(t, c, 5*time.Second, "the attempt to fail", testkit.InState(health.Backoff))
	took := st.Since.Sub(began)
	t.Logf("attempt ended after %v (ConnectTimeout %v): %v", took, connectTimeout, st.Err)
	assert.GreaterOrEqual(t, took, connectTimeout)
	assert.Less(t, took, connectTimeout+200*time.Millisecond)
	assert.ErrorIs(t, st.Err, context.DeadlineExceeded)
	assert.Contains(t, st.Err.Error(), "timed out after 300ms")
	assert.Equal(t, 1, st.Attempt)
	require.NoError(t, c.stop())
}

// Stopping during a handshake that is never answered ends it at once: the
// supervisor's stop closes the handshake's socket.
func TestStopDuringHandshakeEndsItAtOnce(t *testing.T) {
	accepted := make(chan struct{}, 1)
	addr := testkit.Serve(t, func(c net.Conn) { // reads the request, never answers
		accepted <- struct{}{}
		_, _ = io.Copy(io.Discard, c)
	})
	o := testOptions()
	o.Supervisor.ConnectTimeout = time.Minute
	c := run(t, "ws://"+addr+"/feed", o, false)
	<-accepted // the handshake is under way
	began := time.Now()
	require.NoError(t, c.stop())
	took := time.Since(began)
	t.Logf("Run returned %v after the stop, during the handshake", took)
	assert.Less(t, took, 500*time.Millisecond)
}
