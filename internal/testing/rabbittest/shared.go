package rabbittest

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// Shared is a broker that the tests of a package share: started by the
// first test that asks for it, closed after the last (see Main). Tests
// that stop or kill it must Start it again; Get does for one that failed
// before it could.
type Shared struct {
	o    Options
	once sync.Once
	b    *Broker
	err  error
}

// NewShared returns a Shared broker with options o, not started yet.
func NewShared(o Options) *Shared { return &Shared{o: o} }

// Get returns the running broker, starting it on the first call. It skips
// t when RabbitMQ is not installed (outside CI) and fails it when the
// broker cannot be started.
func (s *Shared) Get(t testing.TB) *Broker {
	t.Helper()
	s.once.Do(func() { s.b, s.err = New(s.o) })
	if s.err != nil {
		skipOrFail(t, s.err)
	}
	s.b.Start(t) // a test that killed it may have failed before starting it again
	return s.b
}

// Close closes the broker if it was started.
func (s *Shared) Close() error {
	if s.b == nil {
		return nil
	}
	return s.b.Close()
}

// Runner is what testing.M and goleak.VerifyTestMain have in common.
type Runner interface{ Run() int }

// Main returns m whose Run closes the shared brokers after the tests, so
// that `goleak.VerifyTestMain(rabbittest.Main(m, shared))` finds nothing
// of theirs left.
func Main(m Runner, shared ...*Shared) Runner { return closing{m, shared} }

type closing struct {
	m      Runner
	shared []*Shared
}

func (c closing) Run() int {
	code := c.m.Run()
	for _, s := range c.shared {
		if err := s.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	return code
}
