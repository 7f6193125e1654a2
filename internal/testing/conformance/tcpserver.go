package conformance

import (
	"net"
	"sync"
	"testing"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// TCPServer is a testkit.Server with the behaviours of a Server, for the
// harnesses of adapters/tcp and adapters/tcp/rpc. It serves a connection
// with Serving; refuses one by closing it at once (retried) or by serving
// it with ForGood (a refusal the adapter gives up on); Close hangs up the
// live connections; while stalled, a live connection's reads block.
type TCPServer struct {
	*testkit.Server
	Serving, ForGood func(c net.Conn, quit <-chan struct{})

	modes  // refusal: 1 closes at once, 2 serves with ForGood
	mu     sync.Mutex
	killed bool
}

// StartTCP starts s, until the test ends.
func StartTCP(t testing.TB, s *TCPServer) *TCPServer {
	t.Helper()
	s.modes.init()
	s.Server = testkit.StartServer(t, s.handle)
	return s
}

func (s *TCPServer) handle(c net.Conn, quit <-chan struct{}) {
	refusal, closing, stalled := s.now()
	switch refusal {
	case 1:
		return
	case 2:
		s.ForGood(c, quit)
		return
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-closing:
			_ = c.Close()
		case <-done:
		}
	}()
	s.Serving(&stallConn{Conn: c, stalled: stalled, quit: quit}, quit)
}

// Serve serves again: no refusal, no stall, listening.
func (s *TCPServer) Serve() {
	s.serve()
	s.mu.Lock()
	killed := s.killed
	s.killed = false
	s.mu.Unlock()
	if killed {
		s.Restart()
	}
}

// Refuse closes new connections at once, or serves them with ForGood.
func (s *TCPServer) Refuse(permanent bool) {
	if permanent {
		s.refuse(2)
		return
	}
	s.refuse(1)
}

// Close hangs up every live connection.
func (s *TCPServer) Close() { s.close() }

// Stall blocks the live connections' reads until Serve.
func (s *TCPServer) Stall() { s.stall() }

// Kill stops the server: every connection closed, connecting refused.
func (s *TCPServer) Kill() {
	s.mu.Lock()
	s.killed = true
	s.mu.Unlock()
	s.Stop()
}

// stallConn is a server's connection whose reads block once it is stalled,
// until the server stops: the client's data stays unread.
type stallConn struct {
	net.Conn
	stalled, quit <-chan struct{}
}

func (c *stallConn) Read(p []byte) (int, error) {
	select {
	case <-c.stalled:
		<-c.quit
		return 0, net.ErrClosed
	default:
		return c.Conn.Read(p)
	}
}
