package websocket_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testkit"
)

// server is a real WebSocket server on 127.0.0.1, built with coder/websocket's
// Accept in a net/http server. stop and restart keep its address, as a
// restarted process would.
type server struct {
	t       *testing.T
	addr    string
	handler http.HandlerFunc

	handshakes atomic.Int64 // requests seen, answered 101 or not
	mu         sync.Mutex
	srv        *http.Server
	conns      map[*websocket.Conn]struct{}
	subs       []string    // subscribe messages, in arrival order
	subCh      chan string // each subscribe message too, for waiting
	handlers   sync.WaitGroup
}

// startServer serves handler (nil: feed, an accepting server that records
// subscribe messages) until the test ends.
func startServer(t *testing.T, handler func(s *server, w http.ResponseWriter, r *http.Request)) *server {
	s := &server{t: t, conns: map[*websocket.Conn]struct{}{}, subCh: make(chan string, 64)}
	if handler == nil {
		handler = func(s *server, w http.ResponseWriter, r *http.Request) {
			if c := s.accept(w, r); c != nil {
				s.feed(r.Context(), c)
			}
		}
	}
	s.handler = func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.srv == nil { // stopping: stop is waiting for the handlers
			s.mu.Unlock()
			return
		}
		s.handlers.Add(1)
		s.mu.Unlock()
		defer s.handlers.Done()
		s.handshakes.Add(1)
		handler(s, w, r)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s.addr = ln.Addr().String()
	s.serve(ln)
	t.Cleanup(s.stop)
	return s
}

func (s *server) serve(ln net.Listener) {
	srv := &http.Server{Handler: s.handler}
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// url is ws://addr/path, through addr when given (a proxy).
func (s *server) url(path string) string { return "ws://" + s.addr + path }

// accept upgrades r and tracks the connection so that stop can drop it.
func (s *server) accept(w http.ResponseWriter, r *http.Request) *websocket.Conn {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return nil
	}
	s.track(c)
	return c
}

// track lets stop drop c.
func (s *server) track(c *websocket.Conn) {
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
}

// feed reads until the connection ends, recording "subscribe ..." messages.
func (s *server) feed(ctx context.Context, c *websocket.Conn) {
	defer s.forget(c)
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if m := string(msg); strings.HasPrefix(m, "subscribe ") {
			s.mu.Lock()
			s.subs = append(s.subs, m)
			s.mu.Unlock()
			s.subCh <- m
		}
	}
}

func (s *server) forget(c *websocket.Conn) {
	_ = c.CloseNow()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

func (s *server) subscribes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.subs...)
}

// waitSubscribe waits up to d for the next subscribe message.
func (s *server) waitSubscribe(t *testing.T, d time.Duration) string {
	t.Helper()
	select {
	case m := <-s.subCh:
		return m
	case <-time.After(d):
		t.Fatalf("no subscribe message within %v", d)
		return ""
	}
}

// stop closes the listener and drops every connection without a close
// frame, like a killed process, and waits for the handlers.
func (s *server) stop() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	conns := s.conns
	s.conns = map[*websocket.Conn]struct{}{}
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
	for c := range conns {
		_ = c.CloseNow()
	}
	s.handlers.Wait()
}

// restart listens again on the same address.
func (s *server) restart() {
	ln, err := net.Listen("tcp", s.addr) // Go listeners set SO_REUSEADDR
	require.NoError(s.t, err)
	s.serve(ln)
}

// silentServer accepts TCP connections and never answers: a handshake to it
// hangs until the client gives up.
func silentServer(t *testing.T) string { return testkit.Serve(t, nil) }
