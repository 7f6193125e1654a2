package backoff

import (
	"context"
	"fmt"
	"time"
)

// Defaults of RetryOptions.
const (
	DefaultMaxAttempts = 3
	DefaultMaxHint     = 5 * time.Minute
)

// RetryOptions configures Retry. The zero value is the default: the default
// Config, 3 attempts, no Budget, hints honored up to 5 minutes.
type RetryOptions struct {
	Backoff     Config
	MaxAttempts int           // attempts in all, the first included; 0 means 3
	Budget      *Budget       // nil: none
	MaxHint     time.Duration // longest Retry-After honored; 0 means 5 minutes
}

// Retry calls op until it succeeds, returns a Permanent error, or
// MaxAttempts calls were made. Between calls it waits the backoff's delay,
// lengthened (never shortened) by the error's RetryAfterHint clamped to
// MaxHint.
//
// Retry gives up at once with op's last error when a retry is refused by the
// Budget, or when the wait would end after ctx's deadline: it never sleeps
// for nothing. When ctx ends during a wait, the returned error wraps both
// the last error and ctx's cause. Invalid options are an error before op is
// ever called.
func Retry[T any](ctx context.Context, op func(context.Context) (T, error), o RetryOptions) (T, error) {
	var zero T
	if o.MaxAttempts < 0 {
		return zero, invalid("MaxAttempts", o.MaxAttempts, "negative")
	}
	if o.MaxHint < 0 {
		return zero, invalid("MaxHint", o.MaxHint, "negative")
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.MaxHint == 0 {
		o.MaxHint = DefaultMaxHint
	}
	b, err := New(o.Backoff)
	if err != nil {
		return zero, err
	}
	if o.Budget != nil {
		o.Budget.OnRequest()
	}
	var timer *time.Timer
	for attempt := 1; ; attempt++ {
		v, err := op(ctx)
		if err == nil || IsPermanent(err) || attempt >= o.MaxAttempts || ctx.Err() != nil {
			return v, err
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
	}
}
