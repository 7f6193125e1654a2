package testkit

import (
	"sync"
	"testing"
	"time"

	"github.com/redial-go/redial/health"
)

// Subscriber is anything with a health channel: a supervisor, a Listener,
// a Pool, an RPC.
type Subscriber interface {
	Subscribe() (<-chan health.Status, func())
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
				t.Fatalf("no %s: the health channel closed; last status: %s attempt %d err %v", what, last.State, last.Attempt, last.Err)
			}
			if ok(st) {
				return st
			}
			last = st
		case <-timer.C:
			t.Fatalf("no %s within %v; last status: %s attempt %d err %v", what, d, last.State, last.Attempt, last.Err)
		}
	}
}

// InState is a WaitStatus condition: the state is st.
func InState(st health.State) func(health.Status) bool {
	return func(s health.Status) bool { return s.State == st }
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
