package backoff

import (
	"context"
	"time"
)

// DefaultHedgeMax is the number of copies Hedge runs when HedgeOptions.Max
// is 0: the call and one hedge.
const DefaultHedgeMax = 2

// HedgeOptions configures Hedge. Delay is required; Max 0 means 2 copies,
// a nil Budget lets every copy go. It is a plain value: concurrent Hedge
// calls may share one, and so its Budget (which is safe for concurrent use).
type HedgeOptions struct {
	// Delay is how long Hedge waits for a copy before it starts the next
	// one: about the operation's 95th-percentile latency. Required.
	Delay time.Duration
	// Max is the number of copies in all, the first included, and so the
	// most in flight at once; 0 means 2, 1 means no hedging.
	Max int
	// Budget, when not nil, gets one request per call (OnRequest) and one
	// token per extra copy (TryRetry), as Retry spends it. A refusal means
	// no extra copy, then or later in the call.
	Budget *Budget
}

// Hedge calls op and, when it has not returned after Delay, calls it again
// alongside, and so on every Delay until Max copies were started: the first
// success wins and the other copies' contexts are cancelled. A copy that
// fails with a retryable error starts the next copy at once, if one is left
// and the Budget allows it. A Permanent error ends it at once (the other
// copies are cancelled) and is returned. When every copy failed, Hedge
// returns the last copy's error. When ctx ends, no more copies start; the
// ones in flight see ctx's end through their own.
//
// Every copy has returned before Hedge returns, so op must return soon
// after its context is cancelled. The copies run on their own goroutines,
// at the same time: op must be safe for concurrent use, and should be
// idempotent. What a copy returns after another won is dropped. Invalid
// options (Delay not positive, Max negative) are an error before op is
// ever called.
func Hedge[T any](ctx context.Context, op func(context.Context) (T, error), o HedgeOptions) (T, error) {
	var zero T
	if o.Delay <= 0 {
		return zero, invalid("Delay", o.Delay, "not positive")
	}
	if o.Max < 0 {
		return zero, invalid("Max", o.Max, "negative")
	}
	if o.Max == 0 {
		o.Max = DefaultHedgeMax
	}
	if o.Budget != nil {
		o.Budget.OnRequest()
	}

	type result struct {
		v   T
		err error
	}
	copyCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan result, o.Max) // no copy ever blocks on its send
	started, running := 0, 0
	start := func() {
		started++
		running++
		go func() {
			v, err := op(copyCtx)
			results <- result{v, err}
		}()
	}
	// more reports whether another copy may start, spending a Budget token
	// for it; after a refusal no copy starts.
	more := func() bool {
		if started >= o.Max || ctx.Err() != nil {
			return false
		}
		if o.Budget != nil && !o.Budget.TryRetry() {
			o.Max = started
			return false
		}
		return true
	}

	start()
	timer := time.NewTimer(o.Delay)
	defer timer.Stop()
	var (
		last  result
		ended bool // a copy won or returned a Permanent error
	)
	for running > 0 {
		var tick <-chan time.Time
		if !ended && started < o.Max {
			tick = timer.C
		}
		select {
		case <-tick:
			if more() {
				start()
				timer.Reset(o.Delay)
			}
		case r := <-results:
			running--
			if ended {
				continue
			}
			last = r
			if r.err == nil || IsPermanent(r.err) {
				ended = true
				cancel()
				continue
			}
			if more() {
				start()
				timer.Reset(o.Delay)
			}
		}
	}
	return last.v, last.err
}
