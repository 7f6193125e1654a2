package websocket_test

import (
	"context"
	"testing"

	"github.com/coder/websocket"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/internal/testing/conformance"
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// The harness: conformance's WebSocket harness, as for adapters/gorilla.
func TestConformance(t *testing.T) {
	redialtest.TestConnector(t, conformance.WebSocketHarness("websocket", newForSuite, redialws.Messages, readOne))
}

func newForSuite(w conformance.WebSocketTarget, onConnect func(context.Context, *websocket.Conn) error) (*supervisor.Supervisor[*websocket.Conn], error) {
	o := options(w.WSOptions)
	o.OnConnect = onConnect
	return redialws.New(w.URL, o)
}
