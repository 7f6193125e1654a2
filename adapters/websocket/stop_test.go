package websocket_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testkit"
)

// Stopping the supervisor closes a healthy connection with the close
// handshake: the server reads 1000 (normal closure).
func TestStopClosesWithNormalClosure(t *testing.T) {
	got := make(chan websocket.StatusCode, 1)
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		c := s.accept(w, r)
		if c == nil {
			return
		}
		defer s.Forget(c)
		_, _, err := c.Read(r.Context())
		got <- websocket.CloseStatus(err)
	})
	c := run(t, srv.url("/feed"), testOptions(), true)
	testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
	require.NoError(t, c.Stop())
	select {
	case code := <-got:
		assert.Equal(t, websocket.StatusNormalClosure, code)
	case <-time.After(5 * time.Second):
		t.Fatal("the server saw no close")
	}
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
