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

// testOptions have testkit.SocketSettings.
func testOptions() redialws.Options {
	return redialws.Options{Supervisor: testkit.SocketSettings()}
}

// subscribeOnConnect sends "subscribe prices" after every connect.
func subscribeOnConnect(o *redialws.Options) {
	o.OnConnect = func(ctx context.Context, c *websocket.Conn) error {
		return c.Write(ctx, websocket.MessageText, []byte("subscribe prices"))
	}
}

// run starts Run for url and, when read is true, a loop over Messages, as
// a feed program does; both end when the test does.
func run(t *testing.T, url string, o redialws.Options, read bool) *client {
	t.Helper()
	return testkit.StartNew(t, redialws.New, redialws.Messages, url, o, read)
}
