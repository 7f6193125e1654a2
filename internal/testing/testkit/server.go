package testkit

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Server is a TCP server on 127.0.0.1 that a test can stop and restart on
// the same address. handle serves one connection; it must return when
// quit is closed or conn fails.
type Server struct {
	Addr    string
	Accepts atomic.Int64 // connections accepted so far

	t           testing.TB
	handle      func(conn net.Conn, quit <-chan struct{})
	afterAccept func(quit <-chan struct{}) // tests of the kit: runs between Accept and registering
	mu          sync.Mutex
	ln          net.Listener // nil while stopped
	conns       map[net.Conn]struct{}
	quit        chan struct{}
	wg          sync.WaitGroup
}

// StartServer starts a Server; the test's cleanup stops it.
func StartServer(t testing.TB, handle func(net.Conn, <-chan struct{})) *Server {
	t.Helper()
	s := &Server{t: t, Addr: "127.0.0.1:0", handle: handle}
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// Restart listens on the server's address again.
func (s *Server) Restart() {
	s.t.Helper()
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		s.t.Fatalf("testkit: listen: %v", err)
	}
	s.mu.Lock()
	s.Addr, s.ln, s.conns, s.quit = ln.Addr().String(), ln, map[net.Conn]struct{}{}, make(chan struct{})
	quit := s.quit
	s.mu.Unlock()
	s.wg.Go(func() { s.accept(ln, quit) })
}

// accept serves ln until Stop closes it. A connection accepted while Stop
// runs is closed here: Stop has closed the ones it knew of already, and
// one registered after that would keep its handler, and Stop, waiting.
func (s *Server) accept(ln net.Listener, quit chan struct{}) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if hook := s.afterAccept; hook != nil {
			s.mu.Unlock()
			hook(quit)
			s.mu.Lock()
		}
		if s.ln != ln {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.Accepts.Add(1)
		s.mu.Unlock()
		s.wg.Go(func() {
			defer s.forget(c)
			s.handle(c, quit)
		})
	}
}

func (s *Server) forget(c net.Conn) {
	_ = c.Close()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// Stop closes the listener and every connection and waits for the
// handlers; connecting is refused until Restart.
func (s *Server) Stop() {
	s.mu.Lock()
	if s.ln != nil {
		_ = s.ln.Close()
		close(s.quit)
		for c := range s.conns {
			_ = c.Close()
		}
		s.ln = nil
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// Serve accepts TCP connections on 127.0.0.1 and runs handle on each until
// the test ends; then it closes the listener and every connection and
// waits for the handlers. It returns the address. A nil handle accepts and
// never answers (a server that hangs).
func Serve(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	h := Stall
	if handle != nil {
		h = func(c net.Conn, _ <-chan struct{}) { handle(c) }
	}
	return StartServer(t, h).Addr
}

// ClosedAddr returns a 127.0.0.1 address where nothing listens: a dial
// to it is refused.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testkit: listen: %v", err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// Echo copies what it reads back.
func Echo(c net.Conn, _ <-chan struct{}) {
	buf := make([]byte, 32<<10)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		if _, err := c.Write(buf[:n]); err != nil {
			return
		}
	}
}

// Greet says hello, then echoes.
func Greet(c net.Conn, quit <-chan struct{}) {
	if _, err := c.Write([]byte("hello\n")); err == nil {
		Echo(c, quit)
	}
}

// Drop closes every connection at once: a server that flaps.
func Drop(net.Conn, <-chan struct{}) {}

// Stall accepts and never reads: its receive window closes and data sent
// to it stays unacknowledged.
func Stall(_ net.Conn, quit <-chan struct{}) { <-quit }
