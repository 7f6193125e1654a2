package tcp_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
)

// wait bounds every wait for a state in these tests.
const wait = 5 * time.Second

// runner is what the tests need of a supervisor.
type runner interface {
	Run(ctx context.Context) error
	Status() health.Status
	Subscribe() (<-chan health.Status, func())
}

// run starts s.Run and returns a func that stops it and returns Run's
// error; the test's cleanup stops it too.
func run(t *testing.T, s runner) (stop func() error) {
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

// until reads ch until a Status satisfies ok and returns it; it fails the
// test after wait.
func until(t *testing.T, ch <-chan health.Status, what string, ok func(health.Status) bool) health.Status {
	t.Helper()
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	var last health.Status
	for {
		select {
		case st := <-ch:
			last = st
			if ok(st) {
				return st
			}
		case <-timeout.C:
			t.Fatalf("no status %s within %v; last: %v %v", what, wait, last.State, last.Err)
		}
	}
}

func isState(s health.State) func(health.Status) bool {
	return func(st health.Status) bool { return st.State == s }
}

// fast is a deterministic backoff for socket tests.
func fast(base, cap time.Duration) backoff.Config {
	return backoff.Config{Strategy: backoff.Exponential, Base: base, Cap: cap}
}

// ctxWait is a context bounded by wait.
func ctxWait(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	t.Cleanup(cancel)
	return ctx
}

// maxAttempts is how many attempts Exponential(base, cap) allows within
// window: the first is immediate, attempt i+1 comes at the earliest after
// the sum of the first i delays.
func maxAttempts(base, cap, window time.Duration) int {
	n, elapsed, d := 1, time.Duration(0), base
	for {
		elapsed += d
		if elapsed > window {
			return n
		}
		n++
		d = min(2*d, cap)
	}
}

func TestMaxAttempts(t *testing.T) {
	// attempts at 0, 20, 60, 140, 300, 620, 940ms
	require.Equal(t, 7, maxAttempts(20*time.Millisecond, 320*time.Millisecond, time.Second))
}
