package gorilla_test

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testkit"
)

// A server that accepts the TCP connection and never answers the
// handshake: the attempt ends at ConnectTimeout. (The same through
// toxiproxy latency is in internal/e2e/adapters/gorilla.)
func TestHandshakeNeverAnsweredEndsAtConnectTimeout(t *testing.T) {
	o := testOptions()
	o.Supervisor.ConnectTimeout = 300 * time.Millisecond
	began := time.Now() // the first attempt is immediate
	c := run(t, "ws://"+silentServer(t)+"/feed", o, true)
	testkit.AssertAttemptTimesOut(t, c, began, o.Supervisor.ConnectTimeout)
	require.NoError(t, c.Stop())
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
	require.NoError(t, c.Stop())
	took := time.Since(began)
	t.Logf("Run returned %v after the stop, during the handshake", took)
	assert.Less(t, took, 500*time.Millisecond)
}
