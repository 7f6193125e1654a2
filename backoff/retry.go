package backoff

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redial-go/redial/internal/opterr"
)

// Defaults of RetryOptions; DefaultMaxHint is the supervisor's too.
const (
	DefaultAttempts = 3
	DefaultMaxHint  = 5 * time.Minute
)

// RetryOptions configures Retry. The zero value is the default: the default
// Config, 3 attempts, no Budget, hints honored up to 5 minutes, no Breaker.
type RetryOptions struct {
	Backoff  Config
	Attempts int           // calls of op in all, the first included; 0 means 3
	Budget   *Budget       // nil: none
	MaxHint  time.Duration // longest Retry-After honored; 0 means 5 minutes
	Breaker  *Breaker      // consulted before every attempt; nil: none
}

// Retry calls op until it succeeds, returns a Permanent error, or
// Attempts calls were made. Between calls it waits the backoff's delay,
// lengthened by the error's RetryAfterHint clamped to MaxHint. It gives up
// at once with op's last error when the Budget refuses a retry or the wait
// would end after ctx's deadline; when ctx ends during a wait, its error
// wraps the last error and ctx's cause. Bad options are an error before op
// is ever called.
//
// With a Breaker, Retry asks Allow before every attempt and records its
// result (a failure after ctx was cancelled counts as neither). Whenever
// the breaker would refuse a call, Retry ends at once: its error wraps
// ErrOpen, carries the time left as its RetryAfterHint, and wraps op's
// last error if any.
func Retry[T any](ctx context.Context, op func(context.Context) (T, error), o RetryOptions) (T, error) {
	var zero T
	if o.Attempts < 0 {
		return zero, invalid("Attempts", o.Attempts, "negative")
	}
	if err := opterr.Duration("backoff", "MaxHint", o.MaxHint); err != nil {
		return zero, err
	}
	if o.Attempts == 0 {
		o.Attempts = DefaultAttempts
	}
	if o.MaxHint == 0 {
		o.MaxHint = DefaultMaxHint
	}
	b, err := New(o.Backoff)
	if err != nil {
		return zero, err
	}
	if o.Breaker != nil {
		if err := o.Breaker.Allow(); err != nil {
			return zero, err
		}
	}
	if o.Budget != nil {
		o.Budget.OnRequest()
	}
	var timer *time.Timer
	for attempt := 1; ; attempt++ {
		v, err := op(ctx)
		if o.Breaker != nil {
			record(o.Breaker, ctx, err)
		}
		if err == nil || IsPermanent(err) || attempt >= o.Attempts || ctx.Err() != nil {
			return v, err
		}
		if o.Breaker != nil {
			if open := o.Breaker.refusal(); open != nil {
				return v, breakerStopped(open, err)
			}
		}
		wait := max(b.Next(), clampedHint(err, o.MaxHint))
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return v, err
		}
		if o.Budget != nil && !o.Budget.TryRetry() {
			return v, err
		}
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		} else {
			timer.Reset(wait)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			return v, fmt.Errorf("%w (retry stopped: %w)", err, context.Cause(ctx))
		}
		if o.Breaker != nil {
			if open := o.Breaker.Allow(); open != nil {
				return v, breakerStopped(open, err)
			}
		}
	}
}

// record records an attempt's result on b; a failure after ctx was
// cancelled says nothing about the server.
func record(b *Breaker, ctx context.Context, err error) {
	if err != nil && errors.Is(ctx.Err(), context.Canceled) {
		b.release()
		return
	}
	b.Record(err)
}

// breakerStopped is Retry's error when the breaker refused a retry: open
// comes first, so that RetryAfterHint finds the breaker's time left.
func breakerStopped(open, last error) error {
	return fmt.Errorf("%w (last error: %w)", open, last)
}
