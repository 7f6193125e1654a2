package websocket_test

import (
	"net/http"
	"testing"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// feedServer is a real coder/websocket server on 127.0.0.1 (a
// testkit.HTTPServer) that accepts every handshake and reads until the
// connection ends, recording the "subscribe ..." messages it reads. It
// stops when the test ends, dropping the connections it still holds.
type feedServer struct {
	*testkit.HTTPServer[*websocket.Conn]
}

func startServer(t *testing.T) *feedServer {
	s := &feedServer{}
	s.HTTPServer = testkit.StartHTTP(t, func(c *websocket.Conn) { _ = c.CloseNow() }, s.serve)
	return s
}

func (s *feedServer) serve(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil || !s.Track(c) {
		return
	}
	defer s.Forget(c)
	for {
		_, msg, err := c.Read(r.Context())
		if err != nil {
			return
		}
		s.Received(msg)
	}
}
