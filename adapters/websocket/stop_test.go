package websocket_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
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

// drainSeen is testkit.DrainSeen with coder/websocket's server.
func drainSeen(t *testing.T, onClose func()) (string, <-chan string) {
	events := make(chan string, 16)
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		c := s.accept(w, r)
		if c == nil {
			return
		}
		defer s.Forget(c)
		for {
			_, msg, err := c.Read(r.Context())
			if err != nil {
				onClose()
				events <- fmt.Sprint("close ", int(websocket.CloseStatus(err)))
				return
			}
			events <- string(msg)
		}
	})
	return srv.url("/feed"), events
}

// Drain: readiness 503 first, the Do under way completes, then close 1001.
func TestDrainSaysGoingAway(t *testing.T) {
	testkit.AssertDrainGoesAway(t, drainSeen, start, func(ctx context.Context, c *websocket.Conn, text string) error {
		return c.Write(ctx, websocket.MessageText, []byte(text))
	})
}
