package tcp

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"

	"github.com/redial-go/redial/backoff"
)

// Classify sorts TCP and TLS errors for the supervisor
// (supervisor.Options.Classify):
//
//   - retried: connection refused, reset, timeouts, io.EOF and every other
//     network error — the server may come back;
//   - retried, and said plainly: a DNS failure — `host "x" not found in DNS`
//     when the name does not exist (DNS comes back, names get created),
//     `DNS lookup of "x" failed` otherwise;
//   - permanent (backoff.Permanent, the supervisor gives up): TLS failures
//     that only a change of configuration fixes — a certificate from an
//     unknown authority or for another host name, a certificate unfit for
//     its use, a server that does not speak TLS at all. An expired
//     certificate is retried: the server may renew it.
//
// It returns err itself when it has nothing to add, and nil for nil.
func Classify(err error) error {
	if err == nil || backoff.IsPermanent(err) {
		return err
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		if dns.IsNotFound {
			return fmt.Errorf("host %q not found in DNS: %w", dns.Name, err)
		}
		return fmt.Errorf("DNS lookup of %q failed: %w", dns.Name, err)
	}
	if tlsConfigError(err) {
		return backoff.Permanent(err)
	}
	return err
}

// tlsConfigError reports whether err is a TLS failure that retrying cannot
// fix.
func tlsConfigError(err error) bool {
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
