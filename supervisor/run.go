package supervisor

import "context"

// Run owns the connection's lifecycle until ctx ends (it returns nil) or
// the supervisor gives up (it returns the error, wrapping ErrFailed and the
// last error). The first attempt is immediate. Before Run returns, the
// connection is closed and nothing Run started is left running, but a
// call of an attempt it abandoned (see Connector). Run may be called once;
// a second call returns ErrAlreadyStarted. When a callback panics, Run
// panics with the same value once the supervisor is Failed (ErrPanicked)
// and Done is closed.
func (s *Supervisor[C]) Run(ctx context.Context) error {
	s.mu.Lock()
	again := s.started
	s.started = true
	s.mu.Unlock()
	if again {
		return s.errorf("%w", ErrAlreadyStarted)
	}
	var zero C
	s.begin(ctx)
	for {
		if s.drainingNow() { // no new attempt once Drain began
			s.burst(ctx, opStop, zero, nil)
			close(s.done)
			return nil
		}
		h := s.burst(ctx, opAttempt, zero, nil)
		for conn := h.conn; conn != zero; {
			h = nil // not kept while Run parks; a replacement's conn is never zero
			var reason error
			if w, ok := s.connector.(Watcher[C]); ok {
				reason = s.watch(ctx, w, conn)
			} else {
				reason = s.waitInvalid(ctx)
			}
			if reason == errSwitch {
				conn = s.burst(ctx, opSwitch, conn, nil).conn
				continue
			}
			h = s.burst(ctx, opServed, conn, reason)
			break
		}
		if h.fail != nil {
			close(s.done)
			return h.fail
		}
		if ctx.Err() != nil || !s.sleepUntil(ctx, h.next) {
			s.burst(ctx, opStop, zero, nil)
			close(s.done)
			return nil
		}
		if p := s.late.Load(); p != nil {
			s.burst(ctx, opCrash, zero, p)
		}
	}
}

// drainingNow reports whether Drain has begun: no new attempt then. Not
// inlined, as the other calls of Run's parked frames: they stay small.
//
//go:noinline
func (s *Supervisor[C]) drainingNow() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.life != nil && s.life.draining
}

// begin counts the first attempt for the Budget, and makes ctx's Done
// channel and room in the history for the first two transitions
// (Connecting, Connected).
func (s *Supervisor[C]) begin(ctx context.Context) {
	s.policy.Start()
	_ = ctx.Done()
	s.mu.Lock()
	if s.history == nil {
		s.history = make([]entry, 0, 2)
	}
	s.mu.Unlock()
}

// burst has a new hand make o, with conn, the connection the supervisor
// holds, and waits for it. When a callback panicked, the hand made the
// supervisor Failed: Run closes Done and panics with the same value.
func (s *Supervisor[C]) burst(ctx context.Context, o op, conn C, reason error) *hand[C] {
	h := &hand[C]{s: s, ctx: ctx, held: conn, reason: reason, done: make(chan struct{})}
	go h.run(o)
	<-h.done
	if p := h.panicked; p != nil {
		close(s.done)
		panic(p.value)
	}
	return h
}

// waitInvalid blocks until the connection is invalidated, its replacement
// is due or ctx ends, and returns why.
func (s *Supervisor[C]) waitInvalid(ctx context.Context) error {
	if s.waitsMore() {
		return s.waitInvalidOrDue(ctx)
	}
	select {
	case err := <-s.invalid:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watch serves a connection with a Watcher: it runs Watch with a ctx that
// Invalidate ends, and returns why the connection broke (a *panicError
// when Watch panicked).
func (s *Supervisor[C]) watch(ctx context.Context, w Watcher[C], conn C) (err error) {
	select {
	case err := <-s.invalid: // invalidated between the attempt and now
		return err
	default:
	}
	watchCtx, cancel := context.WithCancelCause(ctx)
	defer s.watched(cancel, &err)
	s.mu.Lock()
	s.cancelWatch = cancel
	reason := s.invalidErr
	stopped := s.life != nil && s.life.stopped
	s.mu.Unlock()
	switch {
	case stopped: // Drain ended its wait
		cancel(ErrDraining)
	case reason == errSwitch: // asked for a moment ago
		cancel(errSwitch)
	case reason != nil:
		cancel(&InvalidatedError{reason}) // invalidated a moment ago: Watch returns at once
	}
	if stop := s.dueWatch(cancel); stop != nil {
		defer stop()
	}
	err = w.Watch(watchCtx, conn)
	select {
	case cause := <-s.invalid:
		return cause
	default:
	}
	if cause := context.Cause(watchCtx); (cause == errSwitch || cause == ErrDraining) && ctx.Err() == nil {
		return cause
	}
	if err == nil {
		err = ErrLost
	}
	return err
}

// watched ends a Watch's ctx, and makes its panic, if it panicked, its
// error.
func (s *Supervisor[C]) watched(cancel context.CancelCauseFunc, err *error) {
	if v := recover(); v != nil {
		*err = s.panicError("Watch", v)
	}
	cancel(nil)
}
