package conformance

import (
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// StartWebSocket starts the WebSocket server of the harnesses of
// adapters/websocket and adapters/gorilla (gorilla/websocket's Upgrader on
// an HTTPServer). It greets every connection with a text message "hello"
// and reads what the client sends. Close sends a close frame 1011 whose
// reason echoes the handshake; the client's own close frame is answered
// with one whose reason echoes it too; while stalled it answers no ping.
func StartWebSocket(t testing.TB) *HTTPServer {
	s := &HTTPServer{}
	s.Handle = func(w http.ResponseWriter, r *http.Request, closing, stalled <-chan struct{}) {
		var up websocket.Upgrader
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		closeWith := func(code int) {
			reason := s.Echo.Short(r)
			s.Echo.Sent(reason)
			_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
		}
		c.SetCloseHandler(func(int, string) error { closeWith(websocket.CloseNormalClosure); return nil })
		c.SetPingHandler(func(data string) error {
			select {
			case <-stalled:
				return nil
			default:
			}
			return c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
		})
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-closing:
				closeWith(websocket.CloseInternalServerErr)
			case <-done:
			}
		}()
		if err := c.WriteMessage(websocket.TextMessage, []byte("hello")); err != nil {
			return
		}
		for {
			if _, _, err := c.NextReader(); err != nil {
				return
			}
		}
	}
	return StartHTTP(t, s)
}
