package tcptest

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Server is a TCP server on 127.0.0.1 that a test can stop and restart on
// the same address. handle serves one connection; it must return when quit
// is closed or conn fails.
type Server struct {
	Addr    string
	Accepts atomic.Int64 // connections accepted so far

	t      testing.TB
	handle func(conn net.Conn, quit <-chan struct{})
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{}
	quit   chan struct{}
	wg     sync.WaitGroup
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
	require.NoError(s.t, err)
	s.mu.Lock()
	s.Addr, s.ln, s.conns, s.quit = ln.Addr().String(), ln, map[net.Conn]struct{}{}, make(chan struct{})
	quit := s.quit
	s.mu.Unlock()
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.Accepts.Add(1)
			s.mu.Lock()
			s.conns[c] = struct{}{}
			s.mu.Unlock()
			s.wg.Go(func() {
				defer c.Close()
				s.handle(c, quit)
			})
		}
	})
}

// Stop closes the listener and every connection and waits for the
// handlers; connecting is refused until Restart.
func (s *Server) Stop() {
	s.mu.Lock()
	if s.ln != nil {
		s.ln.Close()
		close(s.quit)
		for c := range s.conns {
			c.Close()
		}
		s.ln = nil
	}
	s.mu.Unlock()
	s.wg.Wait()
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
