package supervisor

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redial-go/redial/health"
)

// ErrSwitched is yielded once by a feed's iterator (websocket, gorilla:
// Messages; sse: Events; amqp: Deliveries) when its connection was replaced make-before-break (Replace,
// MaxConnectionAge): what follows comes over the new connection, so a
// program that tracks a position resyncs. Nothing was lost by the
// supervisor; the server may send again what the old one carried.
var ErrSwitched = errors.New("connection switched")

// errSwitch ends a connection's serving when a replacement is due; a
// Watch's ctx ends with it as its cause.
var errSwitch = fmt.Errorf("%w: replacement due", ErrSwitched)

// Replace asks for the live connection to be replaced make-before-break:
// a new one is dialed (Connect, then OnConnect, within ConnectTimeout)
// while the old one stays live, Conn and Do hand out the new one from
// then on, and the old one is closed politely once its Do calls returned
// (Acquire holders; at most ConnectTimeout later). If the new
// one fails, the old one stays and is tried again after ConnectTimeout;
// the failure is in Status.Err and the log. For a credential about to
// expire. It does nothing but when Connected, and never blocks.
func (s *Supervisor[C]) Replace() {
	s.mu.Lock()
	var cancel context.CancelCauseFunc
	if s.ready && s.invalidErr == nil && (s.life == nil || !s.life.draining) {
		s.invalidErr = errSwitch // Conn still hands the connection out (see conn)
		s.invalid <- errSwitch   // cannot block, as in Invalidate
		cancel = s.cancelWatch
	}
	s.mu.Unlock()
	if cancel != nil {
		cancel(errSwitch)
	}
}

// aging returns now, from which a new connection's age counts, and
// sets when it is due for replacement.
//
//go:noinline
func (s *Supervisor[C]) aging() time.Time {
	now := time.Now()
	s.mu.Lock()
	if s.life != nil {
		s.life.ageAt = s.ageAt(now)
	}
	s.mu.Unlock()
	return now
}

// ageAt returns when the connection made at now is due for replacement by
// MaxConnectionAge, less rand[0, jitter]; zero when there is no age.
func (s *Supervisor[C]) ageAt(now time.Time) time.Time {
	if s.life == nil || s.life.maxAge <= 0 {
		return time.Time{}
	}
	age, jitter := s.life.maxAge, s.life.maxAgeJitter
	if age <= 0 {
		return time.Time{}
	}
	if jitter > 0 {
		age -= rand.N(jitter + 1)
	}
	return now.Add(age)
}

// switchOver, on the hand, dials the replacement of h.held while it stays
// live; h.conn is the connection Run serves next, the new one or the old
// (switched, switchFailed, or settle once ctx ended).
//
//go:noinline
func (h *hand[C]) switchOver() {
	var zero C
	h.old, h.held = h.held, zero
	h.switching = true
	h.attempt() // its end, here or on the limit's goroutine (expire), sets h.conn
}

// switched makes h.held, dialed and past OnConnect, the live connection,
// then closes the old one once its users released it.
//
//go:noinline
func (h *hand[C]) switched() {
	var zero C
	s := h.s
	now := time.Now()
	s.mu.Lock()
	old := s.live
	if old == h.held { // the same connection again (a Pool's): nothing to retire
		old = zero
	}
	l := s.lifeLocked()
	if old != zero {
		l.old = oldConn[C]{conn: old, use: l.liveUse}
		l.liveUse = 0
	}
	s.live, s.ready, s.invalidErr, s.cancelWatch = h.held, true, nil, nil
	select {
	case <-s.invalid: // about the old one
	default:
	}
	l.ageAt = s.ageAt(now)
	var idle chan struct{}
	if l.old.use > 0 {
		l.old.idle = make(chan struct{})
		idle = l.old.idle
	}
	s.mu.Unlock()
	if p := s.late.Load(); p != nil {
		panic(p)
	}
	s.set(&transition{at: now, state: health.Connected, connect: true})
	h.log(evSwitched, nil, 0)
	h.conn, h.held = h.held, zero
	if old == zero {
		return
	}
	if idle != nil {
		t := time.NewTimer(s.opts.connectTimeout)
		select {
		case <-idle:
		case <-t.C:
		case <-h.ctx.Done():
		}
		t.Stop()
	}
	s.mu.Lock()
	l.old = oldConn[C]{}
	s.mu.Unlock()
	h.held, h.old = old, zero
	h.closeHeld()
}

// switchFailed keeps the old connection after its replacement failed
// (h.err), and tries again after ConnectTimeout and up to as much again.
//
//go:noinline
func (h *hand[C]) switchFailed() {
	var zero C
	s := h.s
	h.conn, h.old = h.old, zero
	now := time.Now()
	s.mu.Lock()
	s.lifeLocked().ageAt = now.Add(s.opts.connectTimeout + rand.N(s.opts.connectTimeout))
	if s.invalidErr == errSwitch { // Run read its token: the old one is live again
		s.invalidErr = nil
	}
	s.mu.Unlock()
	s.set(&transition{at: now, state: health.Connected, err: h.err})
	h.reason = h.err
	h.log(evSwitchFailed, nil, 0)
}

// waitsMore reports whether waitInvalid has more to wait for than the
// reason and ctx: a drain's stop, an age, a failed replacement's retry.
//
//go:noinline
func (s *Supervisor[C]) waitsMore() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.life != nil && (s.life.stopped || !s.life.ageAt.IsZero())
}

// waitInvalidOrDue is waitInvalid with more to wait for: ErrDraining once
// Drain ended the wait, errSwitch when the connection is due for
// replacement.
//
//go:noinline
func (s *Supervisor[C]) waitInvalidOrDue(ctx context.Context) error {
	s.mu.Lock()
	stopped := s.life.stopped
	s.mu.Unlock()
	if stopped {
		return ErrDraining
	}
	var due <-chan time.Time
	if at := s.dueAt(); !at.IsZero() {
		t := time.NewTimer(time.Until(at))
		defer t.Stop()
		due = t.C
	}
	select {
	case err := <-s.invalid:
		return err
	case <-due:
		return errSwitch
	case <-ctx.Done():
		return ctx.Err()
	}
}

// dueAt is when the live connection is due for replacement by age; zero
// without an age.
func (s *Supervisor[C]) dueAt() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.life == nil {
		return time.Time{}
	}
	return s.life.ageAt
}

// dueWatch ends a Watch (cancel, cause errSwitch) when the connection is
// due for replacement by age; stop ends the timer; nil without an age.
//
//go:noinline
func (s *Supervisor[C]) dueWatch(cancel context.CancelCauseFunc) (stop func() bool) {
	at := s.dueAt()
	if at.IsZero() {
		return nil
	}
	return time.AfterFunc(time.Until(at), func() { cancel(errSwitch) }).Stop
}
