package gorilla_test

import (
	"context"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// client is a supervisor a test started, with an optional Messages loop.
type client = testkit.Client[*websocket.Conn]

// testOptions are testkit.SocketSettings.
func testOptions() gorilla.Options {
	return gorilla.Options{Supervisor: supervisor.Options[*websocket.Conn]{Settings: testkit.SocketSettings()}}
}

// subscribeOnConnect sends "subscribe prices" after every connect.
func subscribeOnConnect(o *gorilla.Options) {
	o.Supervisor.OnConnect = func(ctx context.Context, c *websocket.Conn) error {
		return c.WriteMessage(websocket.TextMessage, []byte("subscribe prices"))
	}
}

// run starts Run for url and, when read is true, a loop over
// Messages, as a feed program does; both end when the test does.
func run(t *testing.T, url string, o gorilla.Options, read bool) *client {
	t.Helper()
	return testkit.StartNew(t, gorilla.New, gorilla.Messages, url, o, read)
}

// start is testkit.StartWS.
func start(t *testing.T, url string, w testkit.WSOptions) *client {
	o := testOptions()
	o.Header, o.Subprotocols, o.ReadLimit, o.CloseTimeout = w.Header, w.Subprotocols, w.ReadLimit, w.CloseTimeout
	o.Supervisor.Settings, o.WriteOnly = w.Settings, w.WriteOnly
	return run(t, url, o, w.Read)
}

// readOne reads one message on c, as a program's loop does.
func readOne(_ context.Context, c *websocket.Conn) error {
	_, _, err := c.ReadMessage()
	return err
}

var connected = testkit.Connected
