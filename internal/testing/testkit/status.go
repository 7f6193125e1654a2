package testkit

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redial-go/redial/health"
)

// Wait bounds a wait for a state in socket tests.
const Wait = 5 * time.Second

// Slack is how much later than planned a timer may fire on a loaded
// machine running -race.
const Slack = 400 * time.Millisecond

// Subscriber is anything with a health channel: a supervisor, a Listener,
// a Pool, an RPC.
type Subscriber interface {
	Subscribe() (<-chan health.Status, func())
}

// Runner is what the socket tests need of a supervisor.
type Runner interface {
	Subscriber
	Run(ctx context.Context) error
	Status() health.Status
}

// Run starts s.Run and returns a func that stops it and returns Run's
// error; the test's cleanup stops it too.
func Run(t testing.TB, s Runner) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// CtxWait is a context bounded by Wait, ended when the test ends.
func CtxWait(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), Wait)
	t.Cleanup(cancel)
	return ctx
}

// WaitStatus returns the first Status on s's health channel that satisfies
// ok, failing t if none comes within d, or if the channel closes first (s
// stopped or failed before); what names it in the failure.
func WaitStatus(t testing.TB, s Subscriber, d time.Duration, what string, ok func(health.Status) bool) health.Status {
	t.Helper()
	ch, unsub := s.Subscribe()
	defer unsub()
	timer := time.NewTimer(d)
	defer timer.Stop()
	var last health.Status
	for {
		select {
		case st, open := <-ch:
			if !open {
				t.Fatalf("no %s: the health channel closed; last status: %s attempt %d err %v", what, last.State, last.ConsecutiveFailures, last.Err)
			}
			if ok(st) {
				return st
			}
			last = st
		case <-timer.C:
			t.Fatalf("no %s within %v; last status: %s attempt %d err %v", what, d, last.State, last.ConsecutiveFailures, last.Err)
		}
	}
}

// InState is a WaitStatus and Until condition: the state is st.
func InState(st health.State) func(health.Status) bool {
	return func(s health.Status) bool { return s.State == st }
}

// ErrHas is a WaitStatus and Until condition: Err says every one of substr.
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

// Recorder collects every State a subscriber sees, dropping repeats.
type Recorder struct {
	mu     sync.Mutex
	states []health.State
	unsub  func()
	done   chan struct{}
}

// Record starts recording s's states; Stop ends it.
func Record(s Subscriber) *Recorder {
	ch, unsub := s.Subscribe()
	r := &Recorder{unsub: unsub, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for st := range ch {
			r.mu.Lock()
			if n := len(r.states); n == 0 || r.states[n-1] != st.State {
				r.states = append(r.states, st.State)
			}
			r.mu.Unlock()
		}
	}()
	return r
}

// Stop ends the recording and returns the states seen, in order.
func (r *Recorder) Stop() []health.State {
	r.unsub()
	<-r.done
	return r.states
}
