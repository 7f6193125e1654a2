package websocket_test

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"
)

// feedServer is a real coder/websocket server on 127.0.0.1 that accepts
// every handshake and reads until the connection ends, passing on the
// "subscribe ..." messages it reads. It stops when the test ends,
// dropping the connections it still holds.
type feedServer struct {
	addr     string
	subCh    chan string
	mu       sync.Mutex
	stopped  bool // no new handler may start: cleanup waits for the handlers
	conns    map[*websocket.Conn]struct{}
	handlers sync.WaitGroup
}

func startServer(t *testing.T) *feedServer {
	s := &feedServer{subCh: make(chan string, 64), conns: map[*websocket.Conn]struct{}{}}
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
			_ = c.CloseNow()
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
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		_ = c.CloseNow()
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		_ = c.CloseNow()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	for {
		_, msg, err := c.Read(r.Context())
		if err != nil {
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
