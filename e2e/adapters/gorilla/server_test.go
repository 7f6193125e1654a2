package gorilla_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// feedServer is a real gorilla/websocket server on 127.0.0.1 (a
// testkit.HTTPServer) that accepts every handshake and reads until the
// connection ends (answering pings), recording the "subscribe ..."
// messages it reads; onConn, when set, runs on each new connection before
// the reads (with the handler's writer: it may write, then return). It
// stops when the test ends, dropping the connections it still holds.
type feedServer struct {
	*testkit.HTTPServer[*websocket.Conn]
	closes chan int // the close code each connection ended with (-1: none)
	onConn func(c *websocket.Conn) bool
	every  time.Duration // when set, a message every so often while it reads
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// startServer starts a feed; onConn, if not nil, runs first on every
// connection and says whether the feed goes on reading it.
func startServer(t *testing.T, onConn func(c *websocket.Conn) bool) *feedServer {
	return startStreaming(t, onConn, 0)
}

// startStreaming starts a feed that also sends a message every so often.
func startStreaming(t *testing.T, onConn func(c *websocket.Conn) bool, every time.Duration) *feedServer {
	s := &feedServer{closes: make(chan int, 64), onConn: onConn, every: every}
	s.HTTPServer = testkit.StartHTTP(t, func(c *websocket.Conn) { _ = c.Close() }, s.serve)
	return s
}

func (s *feedServer) serve(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil || !s.Track(c) {
		return
	}
	defer s.Forget(c)
	if s.onConn != nil && !s.onConn(c) {
		return
	}
	if s.every > 0 {
		var writer sync.WaitGroup
		done := make(chan struct{})
		defer writer.Wait()
		defer close(done)
		writer.Go(func() { // the one writer; the handler is the one reader
			tick := time.NewTicker(s.every)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					if c.WriteMessage(websocket.TextMessage, []byte("tick")) != nil {
						return
					}
				}
			}
		})
	}
	for {
		_, msg, err := c.ReadMessage()
		if err != nil {
			code := -1
			if ce, ok := err.(*websocket.CloseError); ok {
				code = ce.Code
			}
			s.closes <- code
			return
		}
		s.Received(msg)
	}
}
