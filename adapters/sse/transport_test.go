package sse_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// TestHeadersNeverSentEndsAtConnectTimeout: a server that takes the
// request and never answers fails the attempt at ConnectTimeout, and the
// next attempt follows.
func TestHeadersNeverSentEndsAtConnectTimeout(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) { <-r.Context().Done() })
	o := testOptions()
	o.Supervisor.ConnectTimeout = 200 * time.Millisecond
	c := start(t, srv.URL+"/events", o, nil)
	st := testkit.WaitStatus(t, c, 5*time.Second, "a failed attempt", testkit.InState(health.Backoff))
	assert.ErrorContains(t, st.Err, "timed out after 200ms")
	testkit.WaitStatus(t, c, 5*time.Second, "the second attempt", func(st health.Status) bool { return st.ConsecutiveFailures >= 2 })
	require.NoError(t, c.stop())
	assert.GreaterOrEqual(t, srv.count(), 2)
}

// TestHTTPSUsesTLS: an https url is reached with Options.TLS.
func TestHTTPSUsesTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stream(w)
		send(w, "1", "secure")
		<-r.Context().Done()
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted attempt's handshake error
	srv.StartTLS()
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	o := testOptions()
	o.TLS = &tls.Config{RootCAs: roots}
	c := start(t, srv.URL+"/events", o, nil)
	assert.Equal(t, "secure", c.next(t, 5*time.Second).ev.Data)
	require.NoError(t, c.stop())

	c = start(t, srv.URL+"/events", testOptions(), nil) // Go's roots: not trusted
	st := testkit.WaitStatus(t, c, 5*time.Second, "a failed attempt", testkit.InState(health.Backoff))
	assert.ErrorContains(t, st.Err, "certificate")
	require.NoError(t, c.stop())
}
