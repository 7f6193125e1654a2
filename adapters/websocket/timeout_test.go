package websocket_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

// attemptEndsAtConnectTimeout runs a client against url and checks that its
// first attempt ends, in Backoff, ConnectTimeout after it began. (The same
// check through toxiproxy latency is in internal/e2e/adapters/websocket.)
func attemptEndsAtConnectTimeout(t *testing.T, url string) {
	const connectTimeout = 300 * time.Millisecond
	o := testOptions()
	o.Supervisor.ConnectTimeout = connectTimeout
	began := time.Now() // the first attempt is immediate
	c := run(t, url, o, true)
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

// A server that accepts the TCP connection and never answers the handshake.
func TestHandshakeNeverAnsweredEndsAtConnectTimeout(t *testing.T) {
	attemptEndsAtConnectTimeout(t, "ws://"+silentServer(t)+"/feed")
}
