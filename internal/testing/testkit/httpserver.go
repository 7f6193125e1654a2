package testkit

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// HTTPServer is an HTTP server on 127.0.0.1 for WebSocket tests, over any
// server library: Stop drops every connection its handlers tracked (of
// type P, with drop), without a close frame, like a killed process, and
// Restart listens again on the same address. It records the "subscribe
// ..." messages its handlers report.
type HTTPServer[P comparable] struct {
	Addr       string
	Handshakes atomic.Int64 // requests seen, answered 101 or not
	Written    atomic.Int64 // bytes written on its connections

	t        testing.TB
	drop     func(P)
	handler  http.HandlerFunc
	mu       sync.Mutex
	srv      *http.Server // nil while stopped
	conns    map[P]struct{}
	subs     []string
	subCh    chan string
	handlers sync.WaitGroup
}

// StartHTTP serves handler until the test ends.
func StartHTTP[P comparable](t testing.TB, drop func(P), handler http.HandlerFunc) *HTTPServer[P] {
	t.Helper()
	s := &HTTPServer[P]{t: t, drop: drop, conns: map[P]struct{}{}, subCh: make(chan string, 64)}
	s.handler = func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.srv == nil { // stopping: Stop is waiting for the handlers
			s.mu.Unlock()
			return
		}
		s.handlers.Add(1)
		s.mu.Unlock()
		defer s.handlers.Done()
		s.Handshakes.Add(1)
		handler(w, r)
	}
	s.Addr = "127.0.0.1:0"
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// URL is ws://addr/path.
func (s *HTTPServer[P]) URL(path string) string { return "ws://" + s.Addr + path }

// Track lets Stop drop p; false (p dropped) when Stop ran while its
// handshake was under way.
func (s *HTTPServer[P]) Track(p P) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		s.drop(p)
		return false
	}
	s.conns[p] = struct{}{}
	return true
}

// Forget drops p.
func (s *HTTPServer[P]) Forget(p P) {
	s.drop(p)
	s.mu.Lock()
	delete(s.conns, p)
	s.mu.Unlock()
}

// Received records msg when it is a "subscribe ..." message.
func (s *HTTPServer[P]) Received(msg []byte) {
	if m := string(msg); strings.HasPrefix(m, "subscribe ") {
		s.mu.Lock()
		s.subs = append(s.subs, m)
		s.mu.Unlock()
		s.subCh <- m
	}
}

// Subscribes returns the subscribe messages, in arrival order.
func (s *HTTPServer[P]) Subscribes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.subs...)
}

// WaitSubscribe waits up to d for the next subscribe message.
func (s *HTTPServer[P]) WaitSubscribe(t testing.TB, d time.Duration) string {
	t.Helper()
	select {
	case m := <-s.subCh:
		return m
	case <-time.After(d):
		t.Fatalf("no subscribe message within %v", d)
		return ""
	}
}

// Stop closes the listener, drops every connection and waits for the
// handlers.
func (s *HTTPServer[P]) Stop() {
	s.mu.Lock()
	srv, conns := s.srv, s.conns
	s.srv, s.conns = nil, map[P]struct{}{}
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
	for p := range conns {
		s.drop(p)
	}
	s.handlers.Wait()
}

// Restart listens again on the same address.
func (s *HTTPServer[P]) Restart() {
	s.t.Helper()
	ln, err := net.Listen("tcp", s.Addr) // Go listeners set SO_REUSEADDR
	if err != nil {
		s.t.Fatalf("testkit: listen: %v", err)
	}
	srv := &http.Server{Handler: s.handler}
	s.mu.Lock()
	s.Addr, s.srv = ln.Addr().String(), srv
	s.mu.Unlock()
	go func() { _ = srv.Serve(counting{ln, &s.Written}) }()
}

// counting is a listener whose connections count the bytes they write.
type counting struct {
	net.Listener
	written *atomic.Int64
}

func (l counting) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.written}, nil
}

type countingConn struct {
	net.Conn
	written *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n))
	return n, err
}
