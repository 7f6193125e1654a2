package backoff

import (
	"context"
	"time"
)

// DefaultHedgeMax is HedgeOptions.Max's default: the call and one hedge.
const DefaultHedgeMax = 2

// HedgeOptions configures Hedge; concurrent calls may share one.
type HedgeOptions struct {
	// Delay is how long Hedge waits for a copy before it starts the next
	// one: about the operation's 95th-percentile latency. Required.
	Delay time.Duration
	// Max is the number of copies in all, the first included; 0 means 2,
	// 1 means no hedging.
	Max int
	// Budget, when set, gets one request per call and spends one token per
	// extra copy, as Retry does; after a refusal no copy starts.
	Budget *Budget
}

// Hedge calls op and, when it has not returned after Delay, calls it again
// alongside, and so on every Delay until Max copies were started: the first
// success wins and the other copies' contexts are cancelled. A copy that
// fails with a retryable error starts the next at once; a Permanent error
// ends Hedge and is returned; when every copy failed, the last error is.
// When ctx ends, no more copies start.
//
// The copies run concurrently: op must be safe for concurrent use, should
// be idempotent, and must return soon after its context is cancelled, for
// every copy has returned before Hedge does. Bad options are an error
// before op is ever called.
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
