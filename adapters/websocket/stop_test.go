package websocket_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"testing"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// closeSeen is testkit.CloseSeen with coder/websocket's server.
func closeSeen(t *testing.T) (string, <-chan int) {
	got := make(chan int, 1)
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		c := s.accept(w, r)
		if c == nil {
			return
		}
		defer s.Forget(c)
		for {
			if _, _, err := c.Read(r.Context()); err != nil {
				got <- int(websocket.CloseStatus(err))
				return
			}
		}
	})
	return srv.url("/feed"), got
}

// Stopping the supervisor closes a healthy connection with a close frame,
// whoever reads.
func TestStopClosesWithNormalClosure(t *testing.T) {
	testkit.AssertStopCloses(t, closeSeen, start)
}

// wss:// with Options.TLS trusting the test server's certificate.
func TestWSSUsesTLS(t *testing.T) {
	testkit.AssertWSS(t, func(w http.ResponseWriter, r *http.Request, first chan<- string) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		if _, msg, err := c.Read(r.Context()); err == nil {
			first <- string(msg)
			_, _, _ = c.Read(r.Context())
		}
	}, func(url string, roots *x509.CertPool) (testkit.Subscriber, func() error) {
		o := testOptions()
		o.TLS = &tls.Config{RootCAs: roots}
		subscribeOnConnect(&o)
		c := run(t, url, o, true)
		return c, c.Stop
	})
}
