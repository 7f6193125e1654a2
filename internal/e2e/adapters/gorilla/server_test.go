package gorilla_test

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"
)

// feedServer is a real gorilla/websocket server on 127.0.0.1 that accepts
// every handshake and reads until the connection ends (answering pings),
// passing on the "subscribe ..." messages it reads; onConn, when set, runs
// on each new connection before the reads (with the handler's writer: it
// may write, then return). It stops when the test ends, dropping the
// connections it still holds.
type feedServer struct {
	addr     string
	subCh    chan string
	closes   chan int // the close code each connection ended with (-1: none)
	onConn   func(c *websocket.Conn) bool
	every    time.Duration // when set, a message every so often while it reads
	mu       sync.Mutex
	stopped  bool // no new handler may start: cleanup waits for the handlers
	conns    map[*websocket.Conn]struct{}
	handlers sync.WaitGroup
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// startServer starts a feed; onConn, if not nil, runs first on every
// connection and says whether the feed goes on reading it.
func startServer(t *testing.T, onConn func(c *websocket.Conn) bool) *feedServer {
	return startStreaming(t, onConn, 0)
}

// startStreaming starts a feed that also sends a message every so often.
func startStreaming(t *testing.T, onConn func(c *websocket.Conn) bool, every time.Duration) *feedServer {
	s := &feedServer{subCh: make(chan string, 64), closes: make(chan int, 64), onConn: onConn, every: every, conns: map[*websocket.Conn]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s.addr = ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(s.serve)}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		s.mu.Lock()
		s.stopped = true
		conns := s.conns
		s.conns = map[*websocket.Conn]struct{}{}
		s.mu.Unlock()
		_ = srv.Close()
		for c := range conns {
			_ = c.Close()
		}
		s.handlers.Wait()
	})
	return s
}

func (s *feedServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()
	defer s.handlers.Done()
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		_ = c.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		_ = c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	if s.onConn != nil && !s.onConn(c) {
		return
	}
	if s.every > 0 {
		s.handlers.Go(func() { // the one writer; the handler is the one reader
			tick := time.NewTicker(s.every)
			defer tick.Stop()
			for range tick.C {
				if c.WriteMessage(websocket.TextMessage, []byte("tick")) != nil {
					return
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
		if m := string(msg); strings.HasPrefix(m, "subscribe ") {
			s.subCh <- m
		}
	}
}

// waitSubscribe waits up to d for the next subscribe message.
func (s *feedServer) waitSubscribe(t *testing.T, d time.Duration) string {
	t.Helper()
	select {
	case m := <-s.subCh:
		return m
	case <-time.After(d):
		t.Fatalf("no subscribe message within %v", d)
		return ""
	}
}
