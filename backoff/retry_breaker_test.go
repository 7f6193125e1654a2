package backoff_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
)

func TestRetryWithOpenBreakerNeverCallsOp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		br := mustBreaker(t, backoff.BreakerConfig{Failures: 1, Cooldown: time.Minute})
		br.Record(errBusy)
		time.Sleep(15 * time.Second)
		budget, err := backoff.NewBudget(0.5, 2)
		require.NoError(t, err)
		require.True(t, budget.TryRetry())

		r := &recorder{}
		_, err = backoff.Retry(t.Context(), r.op, backoff.RetryOptions{Breaker: br, Budget: budget})
		assert.ErrorIs(t, err, backoff.ErrOpen)
		d, ok := backoff.RetryAfterHint(err)
		assert.True(t, ok)
		assert.Equal(t, 45*time.Second, d)
		assert.Empty(t, r.calls)
		assert.Equal(t, 1.0, backoff.Tokens(budget), "a refused call is no request")
	})
}

func TestRetryEndsAtOnceWhenItsFailuresOpenTheBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		br := mustBreaker(t, backoff.BreakerConfig{Failures: 2, Cooldown: time.Minute})
		start := time.Now()
		r := &recorder{errs: []error{errBusy, errBusy, errBusy, errBusy}}
		_, err := backoff.Retry(t.Context(), r.op, backoff.RetryOptions{Backoff: exp(time.Second), Attempts: 5, Breaker: br})
		assert.ErrorIs(t, err, backoff.ErrOpen)
		assert.ErrorIs(t, err, errBusy, "the last error is kept")
		assert.EqualError(t, err, "circuit breaker open: retry after 1m0s (last error: busy)")
		d, _ := backoff.RetryAfterHint(err)
		assert.Equal(t, time.Minute, d)
		assert.Len(t, r.calls, 2)
		assert.Equal(t, time.Second, time.Since(start), "no wait scheduled after the second failure")
		assert.Equal(t, backoff.Open, br.State())
	})
}

func TestRetryEndsBeforeAnAttemptTheBreakerRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		br := mustBreaker(t, backoff.BreakerConfig{Failures: 5, Cooldown: 10 * time.Minute})
		start := time.Now()
		// Another caller opens the breaker while Retry waits out the hint.
		time.AfterFunc(500*time.Millisecond, func() { fail(br, 5) })
		r := &recorder{errs: []error{backoff.RetryAfter(errBusy, time.Hour)}}
		_, err := backoff.Retry(t.Context(), r.op, backoff.RetryOptions{Backoff: exp(time.Second), Breaker: br})
		assert.ErrorIs(t, err, backoff.ErrOpen)
		assert.ErrorIs(t, err, errBusy)
		d, _ := backoff.RetryAfterHint(err)
		assert.Equal(t, 10*time.Minute-(backoff.DefaultMaxHint-500*time.Millisecond), d, "the breaker's hint, not the op's")
		assert.Len(t, r.calls, 1)
		assert.Equal(t, backoff.DefaultMaxHint, time.Since(start))
	})
}

func TestRetryProbeSuccessClosesTheBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		br := halfOpen(t)
		r := &recorder{errs: []error{errBusy}}
		r2 := &recorder{}
		// The first attempt is the probe: its failure re-opens the breaker.
		_, err := backoff.Retry(t.Context(), r.op, backoff.RetryOptions{Backoff: exp(time.Second), Breaker: br})
		assert.ErrorIs(t, err, backoff.ErrOpen)
		assert.Len(t, r.calls, 1)
		time.Sleep(time.Minute)
		v, err := backoff.Retry(t.Context(), r2.op, backoff.RetryOptions{Breaker: br})
		require.NoError(t, err)
		assert.Equal(t, 1, v)
		assert.Equal(t, backoff.Closed, br.State())
	})
}

func TestRetryRefusedWhileAnotherCallerHoldsTheProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		br := halfOpen(t)
		require.NoError(t, br.Allow())
		r := &recorder{}
		_, err := backoff.Retry(t.Context(), r.op, backoff.RetryOptions{Breaker: br})
		assert.ErrorIs(t, err, backoff.ErrOpen)
		assert.Empty(t, r.calls)
	})
}

func TestRetryCancelledAttemptIsNoBreakerFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		br := mustBreaker(t, backoff.BreakerConfig{Failures: 1})
		ctx, cancel := context.WithCancel(t.Context())
		op := func(context.Context) (int, error) { cancel(); return 0, errBusy }
		_, err := backoff.Retry(ctx, op, backoff.RetryOptions{Breaker: br})
		assert.ErrorIs(t, err, errBusy)
		assert.Equal(t, backoff.Closed, br.State(), "the caller gave up: the server is not to blame")

		// A timed-out attempt is a failure.
		ctx, cancel2 := context.WithTimeout(t.Context(), time.Second)
		defer cancel2()
		slow := func(ctx context.Context) (int, error) { <-ctx.Done(); return 0, ctx.Err() }
		_, err = backoff.Retry(ctx, slow, backoff.RetryOptions{Breaker: br})
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, backoff.Open, br.State())
	})
}
