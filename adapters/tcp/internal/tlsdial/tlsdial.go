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
			return nil, err
		}
		return conn, nil
	}
}

// Permanent reports whether err is a TLS failure only a configuration
// change fixes; an expired certificate is retried: it may be renewed.
func Permanent(err error) bool {
	var (
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		record  tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &record):
		return true
	case errors.As(err, &invalid):
		return invalid.Reason != x509.Expired
	}
	return false
}
