package adapt

import (
	"context"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// Lifecycle is what an adapter's own type (a Pool, a Client) offers of
// its supervisor: the methods that cannot step around the adapter's rules.
// The adapter embeds it under an unexported alias, so that Conn, Do,
// Invalidate and Connections stay the adapter's to offer (or not), and
// shadows any of these that it must keep rules for (a Pool's Run).
type Lifecycle[C comparable] struct{ s *supervisor.Supervisor[C] }

// Lift returns the Lifecycle of s.
func Lift[C comparable](s *supervisor.Supervisor[C]) Lifecycle[C] { return Lifecycle[C]{s} }

// Run runs the supervisor until ctx ends or it gives up; see
// supervisor.Supervisor.Run.
func (l *Lifecycle[C]) Run(ctx context.Context) error { return l.s.Run(ctx) }

// Status returns a snapshot of the connection's health.
func (l *Lifecycle[C]) Status() health.Status { return l.s.Status() }

// Subscribe returns the health channel; see supervisor.Supervisor.Subscribe.
func (l *Lifecycle[C]) Subscribe() (<-chan health.Status, func()) { return l.s.Subscribe() }

// Done returns a channel closed once Run has returned.
func (l *Lifecycle[C]) Done() <-chan struct{} { return l.s.Done() }

// Err returns Run's error once it gave up; nil before and after a stop.
func (l *Lifecycle[C]) Err() error { return l.s.Err() }

// Name returns the supervisor's name.
func (l *Lifecycle[C]) Name() string { return l.s.Name() }

// History returns the last transitions, oldest first.
func (l *Lifecycle[C]) History() []health.Transition { return l.s.History() }

// RetryNow cuts the current Backoff wait short; see
// supervisor.Supervisor.RetryNow.
func (l *Lifecycle[C]) RetryNow() { l.s.RetryNow() }
