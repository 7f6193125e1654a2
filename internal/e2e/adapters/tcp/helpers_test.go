package tcp_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// wait bounds every wait for a state in these tests; slack is how much
// later than planned a timer may fire on a loaded machine running -race.
const (
	wait  = 5 * time.Second
	slack = 400 * time.Millisecond
)

// newTCP returns a supervisor of address with a short backoff.
func newTCP(t *testing.T, address string, o tcp.Options) *supervisor.Supervisor[net.Conn] {
	t.Helper()
	if o.Supervisor.Name == "" {
		o.Supervisor.Name = "tcp"
	}
	if o.Supervisor.Backoff == (backoff.Config{}) {
		o.Supervisor.Backoff = backoff.Config{Strategy: backoff.Exponential, Base: 20 * time.Millisecond, Cap: 100 * time.Millisecond}
	}
	s, err := tcp.New(address, o)
	require.NoError(t, err)
	return s
}

// run starts s.Run until the test ends.
func run(t *testing.T, s *supervisor.Supervisor[net.Conn]) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-s.Done() })
}

// until reads ch until a Status satisfies ok and returns it; it fails the
// test after wait, or when the channel closes first.
func until(t *testing.T, ch <-chan health.Status, what string, ok func(health.Status) bool) health.Status {
	t.Helper()
	return testkit.Until(t, ch, wait, what, ok)
}

// errHas is an until condition: Err says every one of substr.
func errHas(substr ...string) func(health.Status) bool {
	return func(st health.Status) bool {
		if st.Err == nil {
			return false
		}
		for _, s := range substr {
			if !strings.Contains(st.Err.Error(), s) {
				return false
			}
		}
		return true
	}
}

// ctxWait is a context bounded by wait.
func ctxWait(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	t.Cleanup(cancel)
	return ctx
}

// echo copies what it reads back.
func echo(c net.Conn) {
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
func greet(c net.Conn) {
	if _, err := c.Write([]byte("hello\n")); err == nil {
		echo(c)
	}
}

// tlsServe wraps handle in a TLS server handshake.
func tlsServe(cfg *tls.Config, handle func(net.Conn)) func(net.Conn) {
	return func(c net.Conn) {
		tc := tls.Server(c, cfg)
		if err := tc.Handshake(); err == nil {
			handle(tc)
		}
	}
}

// readHello is a Handshake: the server speaks first.
func readHello(_ context.Context, c net.Conn) error {
	buf := make([]byte, len("hello\n"))
	_, err := io.ReadFull(c, buf)
	return err
}

// roundTripOnce writes a line and reads its echo.
func roundTripOnce(c net.Conn) error {
	if err := c.SetDeadline(time.Now().Add(wait)); err != nil {
		return err
	}
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	buf := make([]byte, 5)
	_, err := io.ReadFull(c, buf)
	return err
}

// selfSigned returns a server config with a certificate for 127.0.0.1 and
// a client config that trusts it.
func selfSigned(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "redial test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	server = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	return server, &tls.Config{RootCAs: pool}
}
