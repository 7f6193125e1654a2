package tcp_test

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// server is a TCP server on 127.0.0.1 that a test can stop and restart on
// the same address. handle serves one connection; it must return when quit
// is closed or conn fails.
type server struct {
	t       testing.TB
	addr    string
	handle  func(conn net.Conn, quit <-chan struct{})
	accepts atomic.Int64

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	quit  chan struct{}
	wg    sync.WaitGroup
}

func startServer(t testing.TB, handle func(net.Conn, <-chan struct{})) *server {
	t.Helper()
	s := &server{t: t, addr: "127.0.0.1:0", handle: handle}
	s.restart()
	t.Cleanup(s.stop)
	return s
}

// restart listens on the server's address again.
func (s *server) restart() {
	s.t.Helper()
	ln, err := net.Listen("tcp", s.addr)
	require.NoError(s.t, err)
	s.mu.Lock()
	s.addr, s.ln, s.conns, s.quit = ln.Addr().String(), ln, map[net.Conn]struct{}{}, make(chan struct{})
	quit := s.quit
	s.mu.Unlock()
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepts.Add(1)
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

// stop closes the listener and every connection and waits for the
// handlers; connecting is refused until restart.
func (s *server) stop() {
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

// echo copies what it reads back.
func echo(c net.Conn, _ <-chan struct{}) {
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

// greet says hello, then echoes.
func greet(c net.Conn, quit <-chan struct{}) {
	if _, err := c.Write([]byte("hello\n")); err == nil {
		echo(c, quit)
	}
}

// drop closes every connection at once: a server that flaps.
func drop(net.Conn, <-chan struct{}) {}

// stall accepts and never reads: its receive window closes and data sent
// to it stays unacknowledged.
func stall(_ net.Conn, quit <-chan struct{}) { <-quit }
