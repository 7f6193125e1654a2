package supervisor

import (
	"context"
	"errors"
	"time"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/policy"
)

// errRetryNow is RetryNow's and ReportSuccess's token on the invalid channel:
// in Backoff no connection is live, so Invalidate sends nothing there.
var errRetryNow = errors.New("retry now")

const ( // who may cut the Backoff wait (Supervisor.cut)
	byNone     int32 = iota // not in Backoff, or a Budget's refusal
	byProof                 // a server's hint set the wait: ReportSuccess only
	byRetryNow              // the backoff's own wait: RetryNow and ReportSuccess
)

// RetryNow cuts the current Backoff wait short: the next attempt starts at
// once. It is for a program that learned the other side is back by another
// path (a notification from a deployment system), as gRPC's
// ResetConnectBackoff is. It does nothing in any other state, nor when a
// server's hint (Retry-After, an overload close code) set the wait or
// still rests the endpoint it goes to, nor after a Budget's refusal: those
// the supervisor honours.
// The backoff's progression is not reset (StableAfter still decides that).
// It never blocks and is safe for concurrent use.
func (s *Supervisor[C]) RetryNow() { s.wake(byRetryNow) }

// ReportSuccess tells the supervisor the other side serves: the program just
// used it (a query through a pool the supervisor watches). In Backoff the
// next attempt starts at once, even when a server's hint set the wait or
// rests the endpoint (a failure within the hint honours it again); a
// Budget's refusal stands. It never blocks, nor locks or allocates outside
// Backoff: call it after every success.
func (s *Supervisor[C]) ReportSuccess() { s.wake(byProof) }

// wake cuts the Backoff wait if by may; a proof ends the rest too.
func (s *Supervisor[C]) wake(by int32) {
	if s.cut.Load() < by { // no lock unless it may act
		return
	}
	s.mu.Lock()
	if s.cut.Load() >= by { // set under mu: still in that Backoff
		if by == byProof {
			s.restUntil.Store(nil)
		}
		select {
		case s.invalid <- errRetryNow:
		default: // one token is enough: sleepUntil reads restUntil when it wakes
		}
	}
	s.mu.Unlock()
}

// cutBy says who may cut the wait t begins (RetryNow waits for a rest).
func cutBy(t *transition) int32 {
	switch {
	case t.state != health.Backoff || t.delay == nil || t.delay.Reason == policy.ReasonBudget:
		return byNone
	case t.delay.Reason == policy.ReasonHint:
		return byProof
	}
	return byRetryNow
}

// drainRetry drops a RetryNow token that came too late to cut a wait: the
// attempt it asked for is under way. Run calls it once the state is
// Connecting, when no RetryNow sends any more.
func (s *Supervisor[C]) drainRetry() {
	s.mu.Lock()
	if s.live == *new(C) {
		select {
		case <-s.invalid:
		default:
		}
	}
	s.mu.Unlock()
}

// sleepUntil waits until t, or a token once the endpoint's rest
// (restUntil) is over, or a late panic, or ctx's end; it reports whether
// the next attempt is due.
func (s *Supervisor[C]) sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			return true
		case tok := <-s.invalid: // no connection is live while it waits
			rest := s.restLeft()
			if tok != errRetryNow || rest <= 0 {
				return true
			}
			timer.Reset(rest) // sooner than t: the rest's end, not the backoff's; a proof may still end it
		case <-ctx.Done():
			return false
		}
	}
}

// rest rests the next attempt's endpoint until until, a time.Time with
// its monotonic reading: a wall-clock step moves no deadline.
func (s *Supervisor[C]) rest(until time.Time) { s.restUntil.Store(&until) }

// restLeft returns how long the endpoint still rests; ReportSuccess ends it.
func (s *Supervisor[C]) restLeft() time.Duration {
	if until := s.restUntil.Load(); until != nil {
		return time.Until(*until)
	}
	return 0
}
