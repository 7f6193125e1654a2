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

// Classify sorts TCP and TLS errors for the supervisor: a TLS failure only
// a configuration change fixes is permanent (an expired certificate is
// retried: it may be renewed); a read or write the kernel timed out
// (keep-alive, TCP_USER_TIMEOUT) wraps supervisor.ErrSilent; a DNS failure
// is retried, said plainly. It returns err itself when it adds nothing.
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

// tlsConfigError reports whether err is a TLS failure retrying cannot fix.
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
