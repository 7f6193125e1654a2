// Package adapt is what every adapter does the same way: the default Name,
// the adapter's Classify before the program's, Settings.Secrets in the
// adapter's secret set, bad-option errors with the adapter's prefix, and
// the liveness sentinel.
package adapt

import (
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/supervisor"
)

// Spec is what an adapter adds to the program's supervisor options.
type Spec struct {
	Pkg      string            // the adapter's package name: the error prefix
	Name     string            // the default Name: the target, redacted
	Classify func(error) error // the adapter's classes; the program's Classify runs after it
	Set      *redact.Set       // the adapter's secret set, which Settings.Secrets joins; nil: none
}

// New returns the supervisor of c under o, as the adapter sp sees it. An
// error in o is said as sp.Pkg's, about the field under "Supervisor".
func New[C comparable](sp Spec, c supervisor.Connector[C], o supervisor.Options[C]) (*supervisor.Supervisor[C], error) {
	if o.Name == "" {
		o.Name = sp.Name
	}
	o.Classify = Chain(sp.Classify, o.Classify)
	if sp.Set != nil && len(o.Secrets) > 0 {
		sp.Set.Add(redact.Named(o.Secrets...))
	}
	s, err := supervisor.New(c, o)
	if err != nil {
		return nil, opterr.Nest(err, sp.Pkg, "Supervisor")
	}
	return s, nil
}

// Chain returns a Classify that runs each step on the result of the one
// before, skipping nil steps and keeping the error when a step returns
// nil: a program's Classify refines the adapter's classes.
func Chain(steps ...func(error) error) func(error) error {
	return func(err error) error {
		for _, step := range steps {
			if step == nil || err == nil {
				continue
			}
			if c := step(err); c != nil {
				err = c
			}
		}
		return err
	}
}

// Silent returns a sentinel of an adapter's liveness failure: its text is
// text, and it wraps supervisor.ErrSilent.
func Silent(text string) error { return &silent{text} }

type silent struct{ text string }

func (e *silent) Error() string { return e.text }
func (e *silent) Unwrap() error { return supervisor.ErrSilent }
