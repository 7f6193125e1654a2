package supervisor

import (
	"errors"

	"github.com/redial-go/redial/internal/redact"
)

// sentinels are kept in the chain of an error rebuilt without a secret.
var sentinels = []error{ErrFailed, ErrStopped, ErrInvalidated, ErrLost, ErrReplaced, ErrPanicked, ErrSilent}

// safe returns err as the supervisor shows it: the heuristics' finds
// masked, and when its text holds a named secret, rebuilt (Target.Error)
// with only the network and context errors, the sentinels and the backoff
// marks in its chain.
func (s *Supervisor[C]) safe(err error) error {
	if err == nil || s.secrets == nil || !s.secrets.Holds(err.Error()) {
		return redact.Error(err)
	}
	keep := redact.SafeChain(err)
	for _, k := range sentinels {
		if errors.Is(err, k) {
			keep = append(keep, k)
		}
	}
	return s.secrets.Error(err, keep...)
}

// text returns t as the supervisor shows it.
func (s *Supervisor[C]) text(t string) string {
	if s.secrets == nil {
		return redact.Text(t)
	}
	return s.secrets.Text(t)
}
