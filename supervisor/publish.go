package supervisor

import (
	"math"
	"time"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/policy"
)

// transition is one state change, made by Run (on its hand) only.
type transition struct {
	at       time.Time // when it happened; zero means now
	state    health.State
	err      error         // nil keeps the last error
	next     time.Time     // NextAttempt (Backoff)
	connect  bool          // a new connection is Connected: Connects++, Attempt = 0
	failed   bool          // an attempt failed: Attempt++, Failures++
	lost     bool          // an established connection broke: an outage begins
	replaced bool          // it is replaced (ErrReplaced): err goes to the history only
	delay    *policy.Delay // the wait and its reason, into Backoff
}

// set publishes t: it updates the Status in place, wakes Conn waiters
// (closing the changed channel) and offers the Status to every subscriber
// without ever blocking. Run is the only writer of s.status, so it may read
// it afterwards without the lock.
func (s *Supervisor[C]) set(t *transition) {
	now := t.at
	if now.IsZero() {
		now = time.Now()
	}
	s.mu.Lock()
	st := &s.status
	from := st.State
	if st.State != t.state {
		st.Since = now
	}
	st.State = t.state
	s.cut.Store(cutBy(t)) // RetryNow and ReportSuccess read it
	if t.state == health.Connecting && s.eps.names != nil {
		st.Endpoint = s.eps.names[s.endpoint]
	}
	st.NextAttempt = t.next
	err := s.safe(t.err)
	if err != nil && !t.replaced {
		st.Err = err
	}
	if t.connect {
		st.Connects++
		st.ConsecutiveFailures = 0
		s.ready = true
		if !s.outageStart.IsZero() {
			s.endOutage(now)
			s.reconnects.add(now)
		}
	}
	if t.failed {
		st.ConsecutiveFailures++
		st.Failures++
		st.LastFailure = now
		s.replacing = false // the replacement failed: an outage since it began
	}
	if t.lost {
		st.LastFailure = now
	}
	if t.lost || t.replaced {
		s.outageStart, s.replacing = now, t.replaced
	}
	if t.state == health.Stopped || t.state == health.Failed {
		s.endOutage(now) // over: the outage ends with the supervisor, it does not grow on
	}
	s.record(from, t, now, err)
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	if len(s.subs) > 0 {
		s.fanout(now)
	}
	if t.state == health.Stopped || t.state == health.Failed {
		s.closeSubs()
	}
	s.mu.Unlock()
}

// endOutage ends the outage under way at now (a replacement's counts once
// an attempt failed). s.mu must be held.
func (s *Supervisor[C]) endOutage(now time.Time) {
	if !s.outageStart.IsZero() && !s.replacing {
		s.status.LongestOutage = max(s.status.LongestOutage, now.Sub(s.outageStart))
	}
	s.outageStart, s.replacing = time.Time{}, false
}

// record keeps t, whose error is err (redacted), in the history ring, the
// oldest making room. s.mu must be held; s.status is already updated.
func (s *Supervisor[C]) record(from health.State, t *transition, now time.Time, err error) {
	e := entry{at: now.UnixNano(), from: uint8(from), to: uint8(t.state), attempt: int32(min(s.status.ConsecutiveFailures, math.MaxInt32)), endpoint: s.status.Endpoint}
	e.err = err
	if t.delay != nil {
		e.delay, e.reason = t.delay.Wait, uint8(t.delay.Reason)+1
	}
	if len(s.history) < health.HistoryLen {
		s.history = append(s.history, e)
	} else {
		s.history[s.recorded%health.HistoryLen] = e
	}
	s.recorded++
}

// entry is a health.Transition as the history keeps it, in 56 bytes
// rather than 104.
type entry struct {
	at       int64 // Unix nanoseconds
	delay    time.Duration
	err      error
	endpoint string
	attempt  int32
	from, to uint8 // health.State
	reason   uint8 // policy.Reason + 1; 0: no delay
}

func (e *entry) transition() health.Transition {
	t := health.Transition{At: time.Unix(0, e.at), From: health.State(e.from), To: health.State(e.to),
		ConsecutiveFailures: int(e.attempt), Delay: e.delay, Err: e.err, Endpoint: e.endpoint}
	if e.reason > 0 {
		t.Reason = policy.Reason(e.reason - 1).String()
	}
	return t
}

// History returns the last transitions, at most health.HistoryLen, oldest
// first. It copies them under the status lock and never waits for Run.
func (s *Supervisor[C]) History() []health.Transition {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.history)
	out := make([]health.Transition, n)
	for i := range n {
		out[i] = s.history[(s.recorded-n+i)%health.HistoryLen].transition()
	}
	return out
}

// closeSubs ends every subscription after the final Status was offered;
// later subscribers get that Status on a closed channel. s.mu must be held.
func (s *Supervisor[C]) closeSubs() {
	for ch := range s.subs {
		close(ch)
	}
	s.subs, s.over = nil, true
}

// fanout offers the Status at now to every subscriber. s.mu must be held.
func (s *Supervisor[C]) fanout(now time.Time) {
	snap := s.snapshot(now)
	for ch := range s.subs {
		offer(ch, &snap)
	}
}

// snapshot returns the Status at now, with the fields that depend on the
// time of reading filled in. s.mu must be held.
func (s *Supervisor[C]) snapshot(now time.Time) health.Status {
	st := s.status
	if !s.outageStart.IsZero() && !s.replacing {
		st.LongestOutage = max(st.LongestOutage, now.Sub(s.outageStart))
	}
	st.ReconnectsLastMinute = s.reconnects.count(now)
	return st
}

// offer puts *v in ch, a channel of capacity 1 that only the caller sends
// on (under s.mu), replacing an unread older value.
func offer(ch chan health.Status, v *health.Status) {
	select {
	case ch <- *v:
		return
	default:
	}
	select {
	case <-ch:
	default:
	}
	ch <- *v
}
