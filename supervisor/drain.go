package supervisor

import (
	"context"
	"errors"
	"time"
)

// ErrDraining is the error of Conn, Acquire and Do once Drain has begun:
// no connection is handed out any more.
var ErrDraining = errors.New("supervisor draining")

// lifeState is what Drain and a replacement know of the connections in use;
// s.mu guards it.
type lifeState[C comparable] struct {
	draining bool
	inUse    int           // connections acquired and not released
	liveUse  int           // of them, the live connection's
	idle     chan struct{} // closed when inUse drops to 0; made by Drain
	stopped  bool          // Drain asked Run to stop (before Run began, maybe)
	old      oldConn[C]    // the connection a replacement retires
	ageAt    time.Time     // when the live connection is due for replacement by age; zero: never

	maxAge, maxAgeJitter time.Duration // Settings'
}

// oldConn is a replaced connection still in use.
type oldConn[C comparable] struct {
	conn C
	use  int           // its users
	idle chan struct{} // closed when use drops to 0
}

// Drain ends the supervisor gracefully, for a program shutting down.
// At once, Draining says so (a health.Registry is not ready) and Conn,
// Acquire and Do refuse with ErrDraining, waiting callers too. Then it
// waits until every connection acquired (Do calls, Acquire until release;
// not a Connections body, which the goodbye ends) is released, and ends
// Run: the connection is closed politely (a Watcher's ctx ends with cause
// ErrDraining, not an *InvalidatedError: the protocol's goodbye, a
// WebSocket's 1001), Stopped is published, Run returns nil. An attempt
// under way ends first (ConnectTimeout bounds it). Drain returns Run's
// result then. When ctx ends first it ends Run at once, cutting the work
// still under way, and returns an error wrapping ctx's without waiting
// for Run (Done says when it has returned). Calls after the first wait as
// it does; before Run, Run stops at once.
func (s *Supervisor[C]) Drain(ctx context.Context) error {
	s.mu.Lock()
	l := s.lifeLocked()
	if !l.draining {
		l.draining = true
		s.wakeLocked()
	}
	var idle chan struct{}
	if l.inUse > 0 {
		if l.idle == nil {
			l.idle = make(chan struct{})
		}
		idle = l.idle
	}
	s.mu.Unlock()
	if idle != nil {
		select {
		case <-idle:
		case <-ctx.Done():
		}
	}
	s.stopDrained()
	if ctx.Err() == nil {
		select {
		case <-s.done:
			return s.Err()
		case <-ctx.Done():
		}
	}
	return s.errorf("drain cut short: %w", context.Cause(ctx))
}

// stopDrained ends Run's wait: the live connection's Watch (cause
// ErrDraining), the wait for Invalidate, a Backoff wait; an attempt under
// way finds stopped once it is Connected (serve).
func (s *Supervisor[C]) stopDrained() {
	var zero C
	var cancel context.CancelCauseFunc
	s.mu.Lock()
	s.life.stopped = true
	switch {
	case s.live == zero: // a Backoff wait's token, as RetryNow's
		select {
		case s.invalid <- ErrDraining:
		default:
		}
	case s.invalidErr == nil || s.invalidErr == errSwitch: // as Invalidate, so that a later one sends nothing
		s.invalidErr = ErrDraining
		select {
		case <-s.invalid:
		default:
		}
		s.invalid <- ErrDraining
		cancel = s.cancelWatch
	} // else invalidated already: Run wakes with that reason
	s.mu.Unlock()
	if cancel != nil {
		cancel(ErrDraining)
	}
}

// Acquire returns the live connection as Conn does, counted as in use
// until release is called (once): Drain waits for it, and a replacement
// closes the connection it replaced only once its users released it. Do
// holds its connection so.
func (s *Supervisor[C]) Acquire(ctx context.Context) (conn C, release func(), err error) {
	conn, err = s.conn(ctx, true)
	if err != nil {
		return conn, func() {}, err
	}
	var once bool
	return conn, func() {
		if !once {
			once = true
			s.release(conn)
		}
	}, nil
}

// release ends one use of conn that Acquire (or conn(ctx, true)) counted.
func (s *Supervisor[C]) release(conn C) {
	s.mu.Lock()
	l := s.life
	l.inUse--
	switch {
	case conn == s.live:
		l.liveUse--
	case conn == l.old.conn && l.old.use > 0:
		l.old.use--
		if l.old.use == 0 && l.old.idle != nil {
			close(l.old.idle)
			l.old.idle = nil
		}
	}
	if l.inUse == 0 && l.idle != nil {
		close(l.idle)
		l.idle = nil
	}
	s.mu.Unlock()
}

// wakeLocked wakes Conn waiters. s.mu must be held.
func (s *Supervisor[C]) wakeLocked() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// lifeLocked returns s.life, made on first use. s.mu must be held.
func (s *Supervisor[C]) lifeLocked() *lifeState[C] {
	if s.life == nil {
		s.life = &lifeState[C]{}
	}
	return s.life
}

// Draining reports whether Drain has begun; a health.Registry reads it
// (health.DrainingSource).
func (s *Supervisor[C]) Draining() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.life != nil && s.life.draining
}
