package gorilla_test

import (
	"context"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/internal/testing/conformance"
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// The harness: conformance's WebSocket harness, as for adapters/websocket.
func TestConformance(t *testing.T) {
	redialtest.TestConnector(t, conformance.WebSocketHarness("gorilla", newForSuite, gorilla.Messages, readOne))
}

func newForSuite(w conformance.WebSocketTarget, onConnect func(context.Context, *websocket.Conn) error) (*supervisor.Supervisor[*websocket.Conn], error) {
	o := options(w.WSOptions)
	o.OnConnect = onConnect
	return gorilla.New(w.URL, o)
}
