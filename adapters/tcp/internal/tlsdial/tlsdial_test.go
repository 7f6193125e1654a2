package tlsdial_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/adapters/tcp/internal/dial"
	"github.com/redial-go/redial/adapters/tcp/internal/tlsdial"
	"github.com/redial-go/redial/internal/testing/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestNilIsPlainTCP(t *testing.T) {
	assert.Nil(t, tlsdial.Layer(nil))
}

// handshake dials srv and runs l over the connection as if it had dialed
// addr; it returns the handshake's error.
func handshake(t *testing.T, srv *testkit.Server, l dial.Layer, addr string) error {
	t.Helper()
	raw, err := net.Dial("tcp", srv.Addr)
	require.NoError(t, err)
	defer raw.Close()
	conn, err := l(t.Context(), raw, addr)
	if err != nil {
		return err
	}
	_, err = io.WriteString(conn, "x")
	return err
}

// The Layer's config is its own: a program that changes its config
// afterwards changes nothing. An empty ServerName is the dialed host.
func TestLayerCopiesTheConfigAndNamesTheHost(t *testing.T) {
	serverTLS, clientTLS := testkit.SelfSigned(t)
	srv := testkit.StartServer(t, testkit.TLSServe(serverTLS, testkit.Echo))
	l := tlsdial.Layer(clientTLS)
	clientTLS.RootCAs, clientTLS.ServerName = nil, "example.com"
	require.NoError(t, handshake(t, srv, l, srv.Addr), "the certificate names 127.0.0.1")
	err := handshake(t, srv, l, "localhost:1")
	assert.ErrorContains(t, err, "wanted to match localhost", "the ServerName is the dialed host")
	assert.True(t, tlsdial.Permanent(err))
}

// A server that does not speak TLS fails the handshake for good, and says
// with whom.
func TestNotATLSServer(t *testing.T) {
	srv := testkit.StartServer(t, testkit.Greet)
	err := handshake(t, srv, tlsdial.Layer(&tls.Config{}), srv.Addr)
	assert.ErrorContains(t, err, "tls handshake with "+srv.Addr+": ")
	var record tls.RecordHeaderError
	assert.ErrorAs(t, err, &record)
	assert.True(t, tlsdial.Permanent(err))
}

func TestPermanent(t *testing.T) {
	for _, tc := range []struct {
		err       error
		permanent bool
	}{
		{fmt.Errorf("tls: %w", x509.UnknownAuthorityError{}), true},
		{x509.HostnameError{Certificate: &x509.Certificate{}, Host: "h"}, true},
		{tls.RecordHeaderError{Msg: "m"}, false}, // on a connection that worked: not the server's setup
		{x509.SystemRootsError{}, true},
		{x509.CertificateInvalidError{Cert: &x509.Certificate{}, Reason: x509.NotAuthorizedToSign}, true},
		{x509.CertificateInvalidError{Cert: &x509.Certificate{}, Reason: x509.Expired}, false},
		{errors.New("tls: handshake failure"), false},
		{io.EOF, false},
	} {
		assert.Equal(t, tc.permanent, tlsdial.Permanent(tc.err), "%v", tc.err)
	}
}
