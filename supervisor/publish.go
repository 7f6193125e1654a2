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
	failed  bool      // an attempt failed: Attempt++, Failures++
	lost    bool      // an established connection broke: an outage begins
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
		if !s.outageStart.IsZero() {
			st.LongestOutage = max(st.LongestOutage, now.Sub(s.outageStart))
			s.outageStart = time.Time{}
			s.reconnects.add(now)
		}
	}
	if t.failed {
		st.Attempt++
		st.Failures++
		st.LastFailure = now
	}
	if t.lost {
		st.LastFailure = now
		s.outageStart = now
	}
	close(s.changed)
	s.changed = make(chan struct{})
	snap := s.snapshot(now)
	for ch := range s.subs {
		offer(ch, snap)
	}
	return snap
}

// snapshot returns the Status at now, with the fields that depend on the
// time of reading filled in. s.mu must be held.
func (s *Supervisor[C]) snapshot(now time.Time) health.Status {
	st := s.status
	if !s.outageStart.IsZero() {
		st.LongestOutage = max(st.LongestOutage, now.Sub(s.outageStart))
	}
	st.ReconnectsLastMinute = s.reconnects.count(now)
	return st
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
