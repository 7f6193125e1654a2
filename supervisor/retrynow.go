package supervisor

import (
	"context"
	"errors"
	"time"

	"github.com/redial-go/redial/internal/policy"
)

// errRetryNow is RetryNow's token on the invalid channel: while the
// supervisor backs off no connection is live, so Invalidate sends nothing
// there and the channel is free to wake the wait.
var errRetryNow = errors.New("retry now")

// RetryNow cuts the current Backoff wait short: the next attempt starts at
// once. It is for a program that learned the other side is back by another
// path (a query that worked through a pool, a notification from a
// deployment system), as gRPC's ResetConnectBackoff is. It does nothing in
// any other state, nor when a server's hint (Retry-After, an overload
// close code) set the wait or still rests the endpoint it goes to, nor
// after a Budget's refusal: those the supervisor honours.
// The backoff's progression is not reset (StableAfter still decides that).
// It never blocks and is safe for concurrent use.
func (s *Supervisor[C]) RetryNow() {
	if !s.retryable.Load() { // Pool.Do calls it after every query: no lock unless it may act
		return
	}
	s.mu.Lock()
	if s.retryable.Load() { // set under mu: still in that Backoff
		select {
		case s.invalid <- errRetryNow:
		default: // one token is enough
		}
	}
	s.mu.Unlock()
}

// cuttable reports whether RetryNow may cut the wait d short: not a wait
// that a server's hint set, nor a Budget's refusal. (One the backoff set
// while a shorter hint rests the endpoint is cut once the rest is over:
// sleepUntil.)
func cuttable(d *policy.Delay) bool {
	return d.Reason != policy.ReasonHint && d.Reason != policy.ReasonBudget
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

// sleepUntil waits until t, or a RetryNow once the endpoint's rest
// (s.restUntil) is over, or ctx's end; it reports whether the next attempt
// is due.
func (s *Supervisor[C]) sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-s.invalid: // RetryNow: no connection is live while it waits
		if rest := time.Until(time.Unix(0, s.restUntil)); rest > 0 {
			timer.Reset(rest) // sooner than t: the hint's end, not the backoff's
			select {
			case <-timer.C:
			case <-ctx.Done():
				return false
			}
		}
		return true
	case <-ctx.Done():
		return false
	}
}
