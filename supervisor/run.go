package supervisor

import (
	"context"
	"fmt"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/policy"
	"github.com/redial-go/redial/internal/redact"
)

// Run owns the connection's lifecycle until ctx ends (it returns nil) or
// the supervisor gives up (it returns the error, wrapping ErrFailed and the
// last error). The first attempt is immediate. Before Run returns, the
// connection is closed and nothing Run started is left running. Run may be
// called once; a second call returns ErrAlreadyStarted.
func (s *Supervisor[C]) Run(ctx context.Context) error {
	if !s.started.CompareAndSwap(false, true) {
		return s.errorf("%w", ErrAlreadyStarted)
	}
	err := s.run(ctx) // failErr, or nil
	close(s.done)
	return err
}

// run is Run's loop. The frames of run, waitInvalid and the select it
// parks in are all an idle supervisor's goroutine holds, and every call it
// makes stays shallow, so that the goroutine fits the smallest stack: the
// attempt's calls run on a goroutine of their own (see hand), and the few
// allocations made on this one are made here, at the top (stack_test.go
// holds the budget).
func (s *Supervisor[C]) run(ctx context.Context) error {
	var zero C
	s.begin(ctx)
	for {
		conn, next, fail := s.attempt(ctx, s.newHand(ctx))
		if conn != zero {
			up := time.Now()
			var reason error
			if w, ok := s.connector.(Watcher[C]); ok {
				reason = s.watch(ctx, w, conn)
			} else {
				reason = s.waitInvalid(ctx)
			}
			next, fail = s.served(ctx, conn, reason, up)
		}
		if fail != nil {
			return fail
		}
		if ctx.Err() != nil || !s.sleepUntil(ctx, next) {
			return s.stop()
		}
	}
}

// begin prepares the first attempt: it counts it for the Budget, and makes
// here, shallow, what the first attempt would make deep inside: ctx's Done
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

// attempt makes one attempt within ConnectTimeout, Connect then OnConnect,
// on h's goroutine while this one waits, and ends h. It returns the
// connection, published Connected and live (Invalidate can match it); or
// when the next attempt is due after a failed one; or Run's error when the
// supervisor gives up. After ctx ended it returns neither.
func (s *Supervisor[C]) attempt(ctx context.Context, h *hand[C]) (conn C, next time.Time, fail error) {
	var zero C
	// Not deferred: a defer here made Run's goroutine park at 4 KiB over
	// a real TCP connection (BENCHMARKS.md, "An idle supervisor": 4096 B
	// of stack against 2136-2254 B without it). A Logger that panics in
	// set or logEvent leaves the hand's goroutine parked.
	s.set(&transition{state: health.Connecting})
	s.drainRetry()
	s.logEvent(evConnecting, nil, 0)
	err := s.connectAndSubscribe(h)
	h.done()
	switch {
	case ctx.Err() != nil:
		if err == nil {
			s.drop(h.conn)
			s.close(h.conn)
		}
		return zero, next, nil
	case err != nil:
		next, fail = s.attemptFailed(err)
		return zero, next, fail
	}
	s.connected()
	return h.conn, next, nil
}

// connectAndSubscribe asks h for Connect, makes the connection live, then
// asks for OnConnect. A connection invalidated while OnConnect ran is not
// usable either.
func (s *Supervisor[C]) connectAndSubscribe(h *hand[C]) error {
	h.call(opConnect)
	if h.err != nil {
		return h.err
	}
	s.mu.Lock()
	s.live = h.conn
	s.mu.Unlock()
	if s.onConnect == nil {
		return nil
	}
	h.call(opOnConnect)
	if h.err == nil {
		s.mu.Lock()
		h.err = s.invalidErr
		s.mu.Unlock()
	}
	if h.err != nil {
		s.drop(h.conn)
		h.call(opFailed)
	}
	return h.err
}

// served ends the connection that broke for reason (or that ctx ended):
// it is no longer live, and closed. It returns when the next attempt is
// due, or Run's error.
func (s *Supervisor[C]) served(ctx context.Context, conn C, reason error, up time.Time) (time.Time, error) {
	s.drop(conn)
	if ctx.Err() != nil {
		s.close(conn)
		return time.Time{}, nil
	}
	return s.lost(conn, reason, time.Since(up))
}

// connect makes the attempt on the current endpoint.
func (s *Supervisor[C]) connect(actx context.Context) (C, error) {
	if s.multi != nil {
		return s.multi.e.ConnectTo(actx, s.endpoint)
	}
	return s.connector.Connect(actx)
}

// waitInvalid blocks until the connection is invalidated or ctx ends, and
// returns why: it serves a connection without a Watcher, allocating
// nothing. It is the frame an idle supervisor parks in, so it holds
// nothing else: a bigger frame here is what pushed an idle goroutine past
// the smallest stack.
func (s *Supervisor[C]) waitInvalid(ctx context.Context) error {
	select {
	case err := <-s.invalid:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watch serves a connection with a Watcher: it runs Watch with a ctx that
// Invalidate ends, and returns why the connection broke.
func (s *Supervisor[C]) watch(ctx context.Context, w Watcher[C], conn C) error {
	select {
	case err := <-s.invalid: // invalidated between the attempt and now
		return err
	default:
	}
	watchCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.mu.Lock()
	s.cancelWatch = cancel
	reason := s.invalidErr
	s.mu.Unlock()
	if reason != nil {
		cancel(&InvalidatedError{reason}) // invalidated a moment ago: Watch returns at once
	}
	err := w.Watch(watchCtx, conn)
	select {
	case cause := <-s.invalid:
		return cause
	default:
	}
	if err == nil {
		err = ErrLost
	}
	return err
}

// drop makes conn no longer live: Conn stops returning it and Invalidate
// ignores it from now on.
func (s *Supervisor[C]) drop(conn C) {
	var zero C
	s.mu.Lock()
	if s.live == conn {
		s.live, s.cancelWatch, s.ready, s.invalidErr = zero, nil, false, nil
		select {
		case <-s.invalid: // a reason nobody read: it was about conn
		default:
		}
	}
	s.mu.Unlock()
}

func (s *Supervisor[C]) close(conn C) {
	if err := s.connector.Close(conn); err != nil {
		s.logCloseError(err)
	}
}

func (s *Supervisor[C]) classify(err error) error {
	if s.opts.Classify == nil || err == nil {
		return err
	}
	if c := s.opts.Classify(err); c != nil {
		return c
	}
	return err
}

// attemptFailed publishes a failed attempt and returns when the next one is
// due, or Run's error when err is permanent or MaxAttempts is reached.
func (s *Supervisor[C]) attemptFailed(err error) (time.Time, error) {
	s.failures++
	failed := transition{state: health.Failed, err: err, failed: true}
	switch {
	case backoff.IsPermanent(err):
		return time.Time{}, s.fail(s.errorf("%w: %w", ErrFailed, err), &failed)
	case s.opts.MaxAttempts > 0 && s.failures >= s.opts.MaxAttempts:
		return time.Time{}, s.fail(s.errorf("%w after %d attempts: %w", ErrFailed, s.failures, err), &failed)
	}
	now := time.Now()
	var d policy.Delay
	s.endpoint, d = s.policy.Failed(s.endpoint, err, now)
	next := now.Add(d.Wait)
	s.restUntil = now.Add(d.Rest).UnixNano()
	s.set(&transition{at: now, state: health.Backoff, err: err, next: next, failed: true, delay: &d})
	s.logEvent(evAttemptFailed, &d, 0)
	return next, nil
}

// fail publishes t (state Failed) and returns err, Run's error, redacted.
func (s *Supervisor[C]) fail(err error, t *transition) error {
	err = redact.Error(err)
	s.mu.Lock()
	s.failErr = err
	s.mu.Unlock()
	s.set(t)
	s.logEvent(evGaveUp, nil, 0)
	return err
}

// connected publishes a new connection.
func (s *Supervisor[C]) connected() {
	s.failures = 0
	s.policy.Connected()
	s.set(&transition{state: health.Connected, connect: true})
	s.logEvent(evConnected, nil, 0)
}

// lost publishes the loss of conn, closes it and returns when the next
// attempt is due, or Run's error when the reason is permanent (a server
// that closed with "policy violation", say).
func (s *Supervisor[C]) lost(conn C, reason error, uptime time.Duration) (time.Time, error) {
	reason = fmt.Errorf("connection lost: %w", s.classify(reason))
	if backoff.IsPermanent(reason) {
		s.close(conn)
		return time.Time{}, s.fail(s.errorf("%w: %w", ErrFailed, reason), &transition{state: health.Failed, err: reason, lost: true})
	}
	now := time.Now()
	var d policy.Delay
	s.endpoint, d = s.policy.Lost(s.endpoint, uptime, reason, now)
	next := now.Add(d.Wait)
	s.restUntil = now.Add(d.Rest).UnixNano()
	s.set(&transition{at: now, state: health.Backoff, err: reason, next: next, lost: true, delay: &d})
	s.logEvent(evLost, &d, uptime) // before Close, which may wait for a close handshake
	s.close(conn)
	return next, nil
}

// stop publishes Stopped; Run returns nil.
func (s *Supervisor[C]) stop() error {
	s.set(&transition{state: health.Stopped})
	s.logEvent(evStopped, nil, 0)
	return nil
}
