package gorilla_test

import (
	"net/http"
	"testing"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// The headers the handshake sets itself are refused: the same rule as
// adapters/websocket's, Sec-WebSocket-Accept and -Protocol included.
func TestNewRefusesHandshakeHeaders(t *testing.T) {
	testkit.AssertRefusesHandshakeHeaders(t, "gorilla", func(h http.Header) error {
		_, err := gorilla.New("ws://h/x", gorilla.Options{Header: h})
		return err
	})
}
