package gorilla_test

import (
	"testing"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// The checks every WebSocket adapter keeps (testkit.AssertWebSocket):
// ReadLimit, Options copied, a flapping server, a handshake never answered.
func TestWebSocketChecks(t *testing.T) {
	testkit.AssertWebSocket(t, websocket.ErrReadLimit, feedWith, start)
}
