package tcptest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redial-go/redial/health"
)

// Wait bounds every wait for a state in these tests.
const Wait = 5 * time.Second

// Slack is how much later than planned a timer may fire on a loaded
// machine running -race.
const Slack = 400 * time.Millisecond

// Runner is what the tests need of a supervisor.
type Runner interface {
	Run(ctx context.Context) error
	Status() health.Status
	Subscribe() (<-chan health.Status, func())
}

// Run starts s.Run and returns a func that stops it and returns Run's
// error; the test's cleanup stops it too.
func Run(t testing.TB, s Runner) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var err error
	stopped := false
	stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			err = <-done
		}
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// Until reads ch until a Status satisfies ok and returns it; it fails the
// test after Wait.
func Until(t testing.TB, ch <-chan health.Status, what string, ok func(health.Status) bool) health.Status {
	t.Helper()
	timeout := time.NewTimer(Wait)
	defer timeout.Stop()
	var last health.Status
	for {
		select {
		case st, open := <-ch:
			if !open {
				t.Fatalf("no status %s: the channel closed; last: %v %v", what, last.State, last.Err)
			}
			last = st
			if ok(st) {
				return st
			}
		case <-timeout.C:
			t.Fatalf("no status %s within %v; last: %v %v", what, Wait, last.State, last.Err)
		}
	}
}

// IsState is an Until condition: the state is s.
func IsState(s health.State) func(health.Status) bool {
	return func(st health.Status) bool { return st.State == s }
}

// ErrHas is an Until condition: Err says every one of substr.
func ErrHas(substr ...string) func(health.Status) bool {
	return func(st health.Status) bool {
		if st.Err == nil {
			return false
		}
		for _, s := range substr {
			if !strings.Contains(st.Err.Error(), s) {
				return false
			}
		}
		return true
	}
}

// CtxWait is a context bounded by Wait.
func CtxWait(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), Wait)
	t.Cleanup(cancel)
	return ctx
}
