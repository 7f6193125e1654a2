package websocket_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testkit"
)

// A server that accepts the TCP connection and never answers the
// handshake: the attempt ends at ConnectTimeout. (The same check through
// toxiproxy latency is in internal/e2e/adapters/websocket.)
func TestHandshakeNeverAnsweredEndsAtConnectTimeout(t *testing.T) {
	o := testOptions()
	o.Supervisor.ConnectTimeout = 300 * time.Millisecond
	began := time.Now() // the first attempt is immediate
	c := run(t, "ws://"+silentServer(t)+"/feed", o, true)
	testkit.AssertAttemptTimesOut(t, c, began, o.Supervisor.ConnectTimeout)
	require.NoError(t, c.Stop())
}
