package tcp

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// Classify sorts TCP errors: a read or write the kernel timed out
// (keep-alive, TCP_USER_TIMEOUT) wraps supervisor.ErrSilent; a DNS failure
// is retried, said plainly; else it returns err itself.
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
	var op *net.OpError
	if errors.As(err, &op) && (op.Op == "read" || op.Op == "write") && errors.Is(err, syscall.ETIMEDOUT) &&
		!errors.Is(err, supervisor.ErrSilent) {
		return fmt.Errorf("%w: %w", supervisor.ErrSilent, err)
	}
	return err
}
