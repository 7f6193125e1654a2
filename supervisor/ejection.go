package supervisor

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/policy"
)

// errFailBack replaces a connection on another endpoint with one on the
// preferred endpoint (PreferFirst).
var errFailBack = fmt.Errorf("fail back to the preferred endpoint: %w", ErrReplaced)

// multi is the health of several endpoints: the list Endpoints returns,
// and PreferFirst's timer, armed while a connection on another endpoint
// is live.
type multi struct {
	prefer bool
	mu     sync.Mutex
	list   []health.EndpointStatus // replaced, never modified, once published
	timer  *time.Timer
	fired  bool
}

// Endpoints returns each endpoint's health, in order, with several
// endpoints (see Settings.EjectAfter); nil with one. It is safe for
// concurrent use and never waits for Run.
func (s *Supervisor[C]) Endpoints() []health.EndpointStatus {
	m := s.eps.m
	if m == nil {
		return nil
	}
	now := time.Now()
	m.mu.Lock()
	list := m.list
	m.mu.Unlock()
	out := slices.Clone(list)
	for i := range out {
		if out[i].State == health.EndpointEjected && !out[i].EjectedUntil.After(now) {
			out[i].State = health.EndpointProbing // its ejection ended since
		}
	}
	return out
}

// noteEndpoints publishes each endpoint's health from the policy; Run
// calls it after each decision.
func (s *Supervisor[C]) noteEndpoints(now time.Time) {
	m := s.eps.m
	if m == nil {
		return
	}
	list := make([]health.EndpointStatus, len(s.eps.names))
	for i, name := range s.eps.names {
		e := s.policy.Endpoint(i, now)
		list[i] = health.EndpointStatus{Name: name, State: health.EndpointState(e.State), Preferred: i == 0 && m.prefer,
			ConsecutiveFailures: e.Failures, Ejections: e.Ejections, EjectedUntil: e.Until}
	}
	m.mu.Lock()
	m.list = list
	m.mu.Unlock()
}

// armFailBack, on a connection made at now, schedules the fail-back to
// endpoint 0 (policy.FailBackAt): conn is then replaced (errFailBack) and
// the attempt goes to endpoint 0; one that fails counts as its failure and
// the round goes on to the next endpoint. Watch's ctx ends with
// errFailBack as its cause, so the Watcher closes conn politely, before
// the dial: make-before-break would hide that gap.
func (s *Supervisor[C]) armFailBack(conn C, now time.Time) {
	m := s.eps.m
	if m == nil {
		return
	}
	at := s.policy.FailBackAt(int(s.endpoint), now)
	if at.IsZero() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.timer = time.AfterFunc(at.Sub(now), func() {
		var cancel context.CancelCauseFunc
		s.mu.Lock()
		if s.live == conn && s.ready && s.invalidErr == nil { // as Invalidate does
			s.invalidErr = errFailBack
			s.invalid <- errFailBack
			cancel = s.cancelWatch
			m.mu.Lock()
			m.fired = true
			m.mu.Unlock()
		}
		s.mu.Unlock()
		if cancel != nil {
			cancel(errFailBack) // not an InvalidatedError: the connection works, the Watcher says goodbye
		}
	})
}

// failingBack, at the start of an attempt, stops the fail-back timer;
// when it fired and the attempt replaces a connection, the attempt goes
// to endpoint 0.
func (s *Supervisor[C]) failingBack(replaced bool) {
	m := s.eps.m
	if m == nil || !m.prefer {
		return
	}
	m.mu.Lock()
	fired := m.fired
	if m.timer != nil {
		m.timer.Stop()
	}
	m.timer, m.fired = nil, false
	m.mu.Unlock()
	if fired && replaced {
		s.endpoint = 0
		s.mu.Lock()
		s.status.Endpoint = s.eps.names[0]
		s.mu.Unlock()
	}
}

// policy's States are health's EndpointStates (checked here).
var (
	_ = [1]struct{}{}[int(policy.Ejected)-int(health.EndpointEjected)]
	_ = [1]struct{}{}[int(policy.Probing)-int(health.EndpointProbing)]
)
