package tcp

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// Classify sorts TCP and TLS errors for the supervisor
// (supervisor.Settings.Classify); it returns err itself when it has
// nothing to add:
//   - a read or write that the kernel timed out (keep-alive or
//     TCP_USER_TIMEOUT: ETIMEDOUT) wraps supervisor.ErrSilent;
//   - a DNS failure is retried, said plainly: `host "x" not found in DNS`,
//     `DNS lookup of "x" failed`;
//   - a TLS failure that only a change of configuration fixes is
//     permanent: a certificate from an unknown authority, for another
//     host or unfit for its use, a server that does not speak TLS. An
//     expired certificate is retried: the server may renew it;
//   - every other network error is retried.
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
	var op *net.OpError
	if errors.As(err, &op) && (op.Op == "read" || op.Op == "write") && errors.Is(err, syscall.ETIMEDOUT) &&
		!errors.Is(err, supervisor.ErrSilent) {
		return fmt.Errorf("%w: %w", supervisor.ErrSilent, err)
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
