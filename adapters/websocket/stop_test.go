package websocket_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
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
	subs := make(chan string, 1)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		_, msg, err := c.Read(r.Context())
		if err == nil {
			subs <- string(msg)
			_, _, _ = c.Read(r.Context())
		}
	}))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	ts.StartTLS()
	defer ts.Close()
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	url := "wss" + strings.TrimPrefix(ts.URL, "https") + "/feed"
	o := testOptions()
	o.TLS = &tls.Config{RootCAs: pool}
	subscribeOnConnect(&o)
	c := run(t, url, o, true)
	testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
	assert.Equal(t, "subscribe prices", <-subs)
	require.NoError(t, c.Stop())

	o.TLS = nil // Go's defaults do not trust the test certificate
	c = run(t, url, o, true)
	st := testkit.WaitStatus(t, c, 5*time.Second, "an error", func(st health.Status) bool { return st.Err != nil })
	assert.Contains(t, st.Err.Error(), "certificate")
	require.NoError(t, c.Stop())
}
