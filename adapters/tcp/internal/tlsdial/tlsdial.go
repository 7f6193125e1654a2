// Package tlsdial is TLS for the dialer of package dial: what tcptls and
// rpc share, so that package tcp links no crypto/tls.
package tlsdial

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"

	"github.com/redial-go/redial/adapters/tcp/internal/dial"
)

// Layer returns the client handshake with a copy of cfg (nil: plain TCP,
// a nil Layer). An empty ServerName is the dialed address's host.
func Layer(cfg *tls.Config) dial.Layer {
	if cfg == nil {
		return nil
	}
	cfg = cfg.Clone()
	return func(ctx context.Context, raw net.Conn, addr string) (net.Conn, error) {
		c := cfg
		if c.ServerName == "" {
			host, _, _ := net.SplitHostPort(addr)
			c = c.Clone()
			c.ServerName = host
		}
		conn := tls.Client(raw, c)
		if err := conn.HandshakeContext(ctx); err != nil {
			if _, ok := err.(*net.OpError); ok {
				return nil, err
			}
			return nil, &handshakeError{addr: addr, err: err}
		}
		return conn, nil
	}
}

// handshakeError is the handshake's own failure (not the socket's).
type handshakeError struct {
	addr string
	err  error
}

func (e *handshakeError) Error() string { return "tls handshake with " + e.addr + ": " + e.err.Error() }

func (e *handshakeError) Unwrap() error { return e.err }

// Permanent reports whether err is a TLS failure only a configuration
// change fixes; an expired certificate is retried: it may be renewed. A
// record that is not TLS counts only in a handshake (a server that does not
// speak TLS), not on a connection that worked.
func Permanent(err error) bool {
	var (
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		roots   x509.SystemRootsError
		hs      *handshakeError
		record  tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &roots):
		return true
	case errors.As(err, &invalid):
		return invalid.Reason != x509.Expired
	case errors.As(err, &hs):
		return errors.As(hs.err, &record)
	}
	return false
}
