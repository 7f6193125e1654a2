package websocket_test

import (
	"context"
	"testing"

	"github.com/coder/websocket"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// client is a supervisor a test started, with an optional Messages loop.
type client = testkit.Client[*websocket.Conn]

// testOptions are testkit.SocketSettings.
func testOptions() redialws.Options {
	return redialws.Options{Supervisor: testkit.SocketSettings()}
}

// subscribeOnConnect sends "subscribe prices" after every connect.
func subscribeOnConnect(o *redialws.Options) {
	o.OnConnect = func(ctx context.Context, c *websocket.Conn) error {
		return c.Write(ctx, websocket.MessageText, []byte("subscribe prices"))
	}
}

// run starts Run for url and, when read is true, a loop over
// Messages, as a feed program does; both end when the test does.
func run(t *testing.T, url string, o redialws.Options, read bool) *client {
	t.Helper()
	return testkit.StartNew(t, redialws.New, redialws.Messages, url, o, read)
}

// options are testOptions with w's.
func options(w testkit.WSOptions) redialws.Options {
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
func readOne(ctx context.Context, c *websocket.Conn) error {
	_, _, err := c.Read(ctx)
	return err
}

var connected = testkit.Connected
