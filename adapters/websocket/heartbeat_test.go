package websocket_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

// Nobody reads and WriteOnly is not set: the pongs are never seen, so the
// heartbeat replaces the connection and says why.
func TestHeartbeatWithoutReaderReplacesConnection(t *testing.T) {
	srv := startServer(t, nil)
	o := testOptions()
	o.PingInterval, o.PingTimeout = 100*time.Millisecond, 100*time.Millisecond
	c := run(t, srv.url("/feed"), o, false)
	testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
	st := testkit.WaitStatus(t, c, 5*time.Second, "the heartbeat to fail", func(st health.Status) bool { return st.State != health.Connected })
	assert.ErrorIs(t, st.Err, redialws.ErrHeartbeat)
	assert.Contains(t, st.Err.Error(), "nothing reads the connection")
	require.NoError(t, c.Stop())
}

// With WriteOnly the adapter reads: pings are answered and the connection
// stays up with nobody reading in the program.
func TestWriteOnlyConnectionStaysUp(t *testing.T) {
	pings := make(chan struct{}, 100)
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OnPingReceived: func(context.Context, []byte) bool {
			pings <- struct{}{}
			return true
		}})
		if err != nil {
			return
		}
		s.Track(c)
		s.feed(r.Context(), c)
	})
	o := testOptions()
	o.WriteOnly = true
	o.PingInterval, o.PingTimeout = 20*time.Millisecond, 100*time.Millisecond
	c := run(t, srv.url("/feed"), o, false)
	testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
	for i := range 10 {
		select {
		case <-pings:
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d pings reached the server", i)
		}
	}
	st := c.Status()
	assert.Equal(t, health.Connected, st.State)
	assert.Equal(t, uint64(1), st.Connects, "ten pings answered on one connection")
	require.NoError(t, c.Stop())
}
