package conformance

import (
	"net"
	"testing"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// TCPServer is a redialtest.Refuser and ConnCloser for the harnesses of
// adapters/tcp, tcptls and rpc. It serves a connection with Serving;
// refuses one by closing it at once (retried) or by serving it with
// ForGood (a refusal the adapter gives up on); CloseConns hangs up the
// live connections.
type TCPServer struct {
	Serving, ForGood func(c net.Conn, quit <-chan struct{})

	srv   *testkit.Server
	modes // refusal: 1 closes at once, 2 serves with ForGood
}

// StartTCP starts s, until the test ends.
func StartTCP(t testing.TB, s *TCPServer) *TCPServer {
	t.Helper()
	s.modes.init()
	s.srv = testkit.StartServer(t, s.handle)
	return s
}

// Addr is the server's address.
func (s *TCPServer) Addr() string { return s.srv.Addr }

func (s *TCPServer) handle(c net.Conn, quit <-chan struct{}) {
	refusal, closing := s.now()
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
	s.Serving(c, quit)
}

// Refuse closes new connections at once, or serves them with ForGood,
// until Serve.
func (s *TCPServer) Refuse(permanent bool) {
	if permanent {
		s.refuse(2)
		return
	}
	s.refuse(1)
}
