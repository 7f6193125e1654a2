package websocket_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// Nobody reads and WriteOnly is not set: the heartbeat replaces the
// connection and says why.
func TestHeartbeatWithoutReaderReplacesConnection(t *testing.T) {
	o := testOptions()
	o.PingInterval, o.PingTimeout = 100*time.Millisecond, 100*time.Millisecond
	c := run(t, startServer(t, nil).url("/feed"), o, false)
	testkit.AssertHeartbeatNeedsReader(t, c, redialws.ErrHeartbeat)
	require.NoError(t, c.Stop())
}

// With WriteOnly the adapter reads: pings are answered and the connection
// stays up with nobody reading in the program.
func TestWriteOnlyConnectionStaysUp(t *testing.T) {
	pings := make(chan struct{}, 100)
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OnPingReceived: func(context.Context, []byte) bool {
			select {
			case pings <- struct{}{}:
			default:
			}
			return true
		}})
		if err == nil && s.Track(c) {
			s.feed(r.Context(), c)
		}
	})
	o := testOptions()
	o.WriteOnly = true
	o.PingInterval, o.PingTimeout = 20*time.Millisecond, 500*time.Millisecond
	c := run(t, srv.url("/feed"), o, false)
	testkit.AssertPingsAnswered(t, c, pings, 10)
	require.NoError(t, c.Stop())
}
