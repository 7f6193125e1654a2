package gorilla_test

import (
	"context"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// client is a supervisor a test started, with an optional Messages loop.
type client = testkit.Client[*websocket.Conn]

// testOptions are testkit.SocketSettings.
func testOptions() gorilla.Options {
	return gorilla.Options{Supervisor: testkit.SocketSettings()}
}

// subscribeOnConnect sends "subscribe prices" after every connect.
func subscribeOnConnect(o *gorilla.Options) {
	o.OnConnect = func(ctx context.Context, c *websocket.Conn) error {
		return c.WriteMessage(websocket.TextMessage, []byte("subscribe prices"))
	}
}

// run starts Run for url and, when read is true, a loop over
// Messages, as a feed program does; both end when the test does.
func run(t *testing.T, url string, o gorilla.Options, read bool) *client {
	t.Helper()
	return testkit.StartNew(t, gorilla.New, gorilla.Messages, url, o, read)
}

// options are testOptions with w's.
func options(w testkit.WSOptions) gorilla.Options {
	o := testOptions()
	o.Header, o.BeforeConnect, o.Subprotocols, o.ReadLimit = w.Header, w.BeforeConnect, w.Subprotocols, w.ReadLimit
	o.PingInterval, o.PingTimeout, o.CloseTimeout, o.WriteOnly = w.PingInterval, w.PingTimeout, w.CloseTimeout, w.WriteOnly
	o.Supervisor = w.Settings
	return o
}

// start is testkit.StartWS.
func start(t *testing.T, url string, w testkit.WSOptions) *client {
	return run(t, url, options(w), w.Read)
}

// readOne reads one message on c, as a program's loop does.
func readOne(_ context.Context, c *websocket.Conn) error {
	_, _, err := c.ReadMessage()
	return err
}

var connected = testkit.Connected
