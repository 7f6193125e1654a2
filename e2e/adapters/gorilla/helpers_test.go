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

// testOptions have testkit.SocketSettings.
func testOptions() gorilla.Options {
	return gorilla.Options{Supervisor: testkit.SocketSettings()}
}

// subscribeOnConnect sends "subscribe prices" after every connect.
func subscribeOnConnect(o *gorilla.Options) {
	o.OnConnect = func(_ context.Context, c *websocket.Conn) error {
		return c.WriteMessage(websocket.TextMessage, []byte("subscribe prices"))
	}
}

// run starts Run for url and, when read is true, a loop over Messages, as
// a feed program does; both end when the test does.
func run(t *testing.T, url string, o gorilla.Options, read bool) *client {
	t.Helper()
	return testkit.StartNew(t, gorilla.New, gorilla.Messages, url, o, read)
}
