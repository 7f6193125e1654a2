package supervisor

import (
	"time"

	"github.com/redial-go/redial/health"
)

// transition is one state change, made by Run's goroutine only.
type transition struct {
	state   health.State
	err     error     // nil keeps the last error
	next    time.Time // NextAttempt (Backoff)
	connect bool      // a new connection is Connected: Connects++, Attempt = 0
	failed  bool      // an attempt failed: Attempt++
}

// set publishes t: it updates the Status, wakes Conn waiters (closing the
// changed channel) and offers the Status to every subscriber without ever
// blocking. It returns the new Status for logging outside the lock.
func (s *Supervisor[C]) set(t transition) health.Status {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &s.status
	if st.State != t.state {
		st.Since = now
	}
	st.State = t.state
	st.NextAttempt = t.next
	if t.err != nil {
		st.Err = health.RedactError(t.err)
	}
	if t.connect {
		st.Connects++
		st.Attempt = 0
		s.ready = true
	}
	if t.failed {
		st.Attempt++
	}
	close(s.changed)
	s.changed = make(chan struct{})
	for ch := range s.subs {
		offer(ch, *st)
	}
	return *st
}

// offer puts v in ch, a channel of capacity 1 that only the caller sends
// on (under s.mu), replacing an unread older value.
func offer(ch chan health.Status, v health.Status) {
	select {
	case ch <- v:
		return
	default:
	}
	select {
	case <-ch:
	default:
	}
	ch <- v
}
