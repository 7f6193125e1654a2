package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
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
	s.policy.Start()
	failures := 0 // consecutive failed attempts
	for {
		conn, liveCtx, err := s.attempt(ctx)
		if ctx.Err() != nil {
			if err == nil {
				s.drop(conn)
				s.close(conn)
			}
			return s.stop()
		}
		if err != nil {
			failures++
			if fail := s.giveUp(err, failures); fail != nil {
				return fail
			}
			d := s.policy.Failed(err)
			next := time.Now().Add(d.Wait)
			s.logAttemptFailed(s.set(transition{state: health.Backoff, err: err, next: next, failed: true}), d)
			if !sleepUntil(ctx, next) {
				return s.stop()
			}
			continue
		}

		failures = 0
		up := time.Now()
		s.logConnected(s.set(transition{state: health.Connected, connect: true}))
		reason := s.watch(liveCtx, conn)
		uptime := time.Since(up)
		s.drop(conn)
		if ctx.Err() != nil {
			s.close(conn)
			return s.stop()
		}
		reason = fmt.Errorf("connection lost: %w", s.classify(reason))
		d := s.policy.Lost(uptime, reason)
		next := time.Now().Add(d.Wait)
		st := s.set(transition{state: health.Backoff, err: reason, next: next, lost: true})
		s.close(conn)
		s.logLost(st, uptime, d)
		if !sleepUntil(ctx, next) {
			return s.stop()
		}
	}
}

// attempt makes one attempt: Connect, then OnConnect, within
// ConnectTimeout. On success the connection is live (Invalidate can match
// it) and liveCtx ends when it is invalidated or ctx ends.
func (s *Supervisor[C]) attempt(ctx context.Context) (conn C, liveCtx context.Context, err error) {
	var zero C
	s.logConnecting(s.set(transition{state: health.Connecting}))
	liveCtx, cancelLive := context.WithCancelCause(ctx)
	actx, cancel := context.WithTimeout(liveCtx, s.opts.ConnectTimeout)
	defer cancel()

	conn, err = s.connector.Connect(actx)
	if err == nil && conn == zero {
		err = errors.New("connector returned neither a connection nor an error")
	}
	if err != nil {
		cancelLive(nil)
		if conn != zero {
			s.close(conn)
		}
		return zero, nil, s.attemptError("connect", actx, err)
	}
	s.mu.Lock()
	s.live, s.cancelLive = conn, cancelLive
	s.mu.Unlock()
	if s.opts.OnConnect != nil {
		if err := s.opts.OnConnect(actx, conn); err != nil {
			s.drop(conn)
			s.close(conn)
			return zero, nil, s.attemptError("on connect", actx, err)
		}
	}
	return conn, liveCtx, nil
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

// watch blocks until conn breaks or liveCtx ends, and returns why.
func (s *Supervisor[C]) watch(liveCtx context.Context, conn C) error {
	var err error
	if s.watcher != nil {
		err = s.watcher.Watch(liveCtx, conn)
	} else {
		<-liveCtx.Done()
	}
	if cause := context.Cause(liveCtx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause // Invalidate's reason
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
	cancel := s.cancelLive
	if s.live == conn {
		s.live, s.cancelLive, s.ready = zero, nil, false
	}
	s.mu.Unlock()
	if cancel != nil {
		cancel(nil)
	}
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

// giveUp returns Run's error when err is permanent or MaxAttempts is
// reached, after publishing Failed; nil to go on.
func (s *Supervisor[C]) giveUp(err error, attempts int) error {
	var fail error
	switch {
	case backoff.IsPermanent(err):
		fail = s.errorf("%w: %w", ErrFailed, err)
	case s.opts.MaxAttempts > 0 && attempts >= s.opts.MaxAttempts:
		fail = s.errorf("%w after %d attempts: %w", ErrFailed, attempts, err)
	default:
		return nil
	}
	s.mu.Lock()
	s.failErr = health.RedactError(fail)
	s.mu.Unlock()
	s.logFailed(s.set(transition{state: health.Failed, err: err, failed: true}))
	return s.failErr
}

// stop publishes Stopped; Run returns nil.
func (s *Supervisor[C]) stop() error {
	s.logStopped(s.set(transition{state: health.Stopped}))
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
