package websocket_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// server is a real WebSocket server on 127.0.0.1, built with
// coder/websocket's Accept in a testkit.HTTPServer: stop and restart keep
// its address, as a restarted process would.
type server struct {
	*testkit.HTTPServer[*websocket.Conn]
}

// startServer serves handler (nil: feed, an accepting server that records
// subscribe messages) until the test ends.
func startServer(t *testing.T, handler func(s *server, w http.ResponseWriter, r *http.Request)) *server {
	s := &server{}
	if handler == nil {
		handler = func(s *server, w http.ResponseWriter, r *http.Request) {
			if c := s.accept(w, r); c != nil {
				s.feed(r.Context(), c)
			}
		}
	}
	s.HTTPServer = testkit.StartHTTP(t, func(c *websocket.Conn) { _ = c.CloseNow() }, func(w http.ResponseWriter, r *http.Request) { handler(s, w, r) })
	return s
}

// feedWith is testkit.FeedWith with coder/websocket's server.
func feedWith(t *testing.T, first func(http.ResponseWriter, *http.Request) bool) *testkit.HTTPServer[*websocket.Conn] {
	return startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		if first(w, r) {
			return
		}
		if c := s.accept(w, r); c != nil {
			s.feed(r.Context(), c)
		}
	}).HTTPServer
}

func (s *server) url(path string) string { return s.URL(path) }

// accept upgrades r and tracks the connection so that Stop can drop it.
func (s *server) accept(w http.ResponseWriter, r *http.Request) *websocket.Conn {
	c, err := websocket.Accept(w, r, nil)
	if err != nil || !s.Track(c) {
		return nil
	}
	return c
}

// feed reads until the connection ends, recording "subscribe ..." messages.
func (s *server) feed(ctx context.Context, c *websocket.Conn) {
	defer s.Forget(c)
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		s.Received(msg)
	}
}
