package supervisor

import (
	"context"
	"errors"
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
	s.runErr = s.run(ctx)
	close(s.done)
	return s.runErr
}

func (s *Supervisor[C]) run(ctx context.Context) error {
	s.policy.Start()
	_ = ctx.Done() // made here, shallow, rather than deep inside the first context.WithTimeout
	for {
		// The attempt's context is made here, at the top of the stack: the
		// context package's frames are deep, and an idle supervisor's
		// goroutine should not need more than the smallest stack.
		actx, cancel := context.WithTimeout(ctx, s.opts.ConnectTimeout)
		next, fail := s.cycle(ctx, actx, cancel)
		if fail != nil {
			return fail
		}
		if ctx.Err() != nil || !sleepUntil(ctx, next) {
			return s.stop()
		}
	}
}

// cycle makes one attempt and, when it succeeds, serves the connection
// until it breaks. It returns when the next attempt is due, or Run's error
// when the supervisor gives up. Once ctx has ended, next means nothing.
//
// cycle and serve are the frames on the stack of an idle supervisor: they
// stay small so that its goroutine fits the smallest stack.
func (s *Supervisor[C]) cycle(ctx, actx context.Context, cancel context.CancelFunc) (next time.Time, fail error) {
	conn, err := s.attempt(actx)
	cancel()
	if ctx.Err() != nil {
		if err == nil {
			s.drop(conn)
			s.close(conn)
		}
		return next, nil
	}
	if err != nil {
		return s.attemptFailed(err)
	}
	up := time.Now()
	s.connected()
	reason := s.serve(ctx, conn)
	s.drop(conn)
	if ctx.Err() != nil {
		s.close(conn)
		return next, nil
	}
	return s.lost(conn, reason, time.Since(up))
}

// attempt makes one attempt within actx (ConnectTimeout): Connect, then
// OnConnect. On success the connection is live: Invalidate can match it.
func (s *Supervisor[C]) attempt(actx context.Context) (C, error) {
	var zero C
	s.set(&transition{state: health.Connecting})
	s.logEvent(evConnecting, nil, 0)

	conn, err := s.connect(actx)
	if err == nil && conn == zero {
		err = errors.New("connector returned neither a connection nor an error")
	}
	if err != nil {
		if conn != zero {
			s.close(conn)
		}
		return zero, s.attemptError("connect", actx, err)
	}
	s.mu.Lock()
	s.live = conn
	s.mu.Unlock()
	if s.onConnect != nil {
		err := s.onConnect(actx, conn)
		if err == nil {
			s.mu.Lock()
			err = s.invalidErr // invalidated while OnConnect ran: not usable either
			s.mu.Unlock()
		}
		if err != nil {
			s.drop(conn)
			s.close(conn)
			return zero, s.attemptError("on connect", actx, err)
		}
	}
	return conn, nil
}

// connect makes the attempt on the current endpoint.
func (s *Supervisor[C]) connect(actx context.Context) (C, error) {
	if s.multi != nil {
		return s.multi.ConnectTo(actx, s.endpoint)
	}
	return s.connector.Connect(actx)
}

// attemptError classifies err and says which step failed, and whether it
// was the attempt's timeout.
func (s *Supervisor[C]) attemptError(step string, actx context.Context, err error) error {
	err = s.classify(err)
	if errors.Is(context.Cause(actx), context.DeadlineExceeded) {
		return fmt.Errorf("%s: timed out after %v: %w", step, s.opts.ConnectTimeout, err)
	}
	return fmt.Errorf("%s: %w", step, err)
}

// serve blocks until conn breaks (Watch returns, or Invalidate) or ctx
// ends, and returns why. Without a Watcher it waits on a channel and
// allocates nothing.
func (s *Supervisor[C]) serve(ctx context.Context, conn C) error {
	if s.watcher == nil {
		return s.waitInvalid(ctx)
	}
	return s.watch(ctx, conn)
}

// waitInvalid is serve without a Watcher. It is the frame an idle
// supervisor parks in, so it holds nothing else: a bigger frame here is
// what pushed an idle goroutine past the smallest stack.
func (s *Supervisor[C]) waitInvalid(ctx context.Context) error {
	select {
	case err := <-s.invalid:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watch is serve with a Watcher: it runs Watch with a ctx that Invalidate
// ends.
func (s *Supervisor[C]) watch(ctx context.Context, conn C) error {
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
	err := s.watcher.Watch(watchCtx, conn)
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

// sleepUntil waits until t or ctx's end; it reports whether t came first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
