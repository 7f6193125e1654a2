package adapt

import (
	"context"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// Lifecycle is the supervisor's methods an adapter's own type offers, the
// ones that cannot step around its rules; embedded under an unexported
// alias, it leaves Conn, Do and Invalidate the adapter's to offer.
type Lifecycle[C comparable] struct{ s *supervisor.Supervisor[C] }

// Lift returns the Lifecycle of s.
func Lift[C comparable](s *supervisor.Supervisor[C]) Lifecycle[C] { return Lifecycle[C]{s} }

func (l *Lifecycle[C]) Run(ctx context.Context) error             { return l.s.Run(ctx) }
func (l *Lifecycle[C]) Status() health.Status                     { return l.s.Status() }
func (l *Lifecycle[C]) Subscribe() (<-chan health.Status, func()) { return l.s.Subscribe() }
func (l *Lifecycle[C]) Done() <-chan struct{}                     { return l.s.Done() }
func (l *Lifecycle[C]) Err() error                                { return l.s.Err() }
func (l *Lifecycle[C]) Name() string                              { return l.s.Name() }
func (l *Lifecycle[C]) History() []health.Transition              { return l.s.History() }
func (l *Lifecycle[C]) RetryNow()                                 { l.s.RetryNow() }
func (l *Lifecycle[C]) Endpoints() []health.EndpointStatus        { return l.s.Endpoints() }
func (l *Lifecycle[C]) Drain(ctx context.Context) error           { return l.s.Drain(ctx) }
func (l *Lifecycle[C]) Draining() bool                            { return l.s.Draining() }
func (l *Lifecycle[C]) Replace()                                  { l.s.Replace() }
