package backoff_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
)

// recorder is an op that fails with errs in turn (then succeeds) and notes
// the virtual time of every call.
type recorder struct {
	errs  []error
	calls []time.Time
}

func (r *recorder) op(ctx context.Context) (int, error) {
	r.calls = append(r.calls, time.Now())
	if n := len(r.calls); n <= len(r.errs) {
		return n, r.errs[n-1]
	}
	return len(r.calls), nil
}

func (r *recorder) gaps() []time.Duration {
	var g []time.Duration
	for i := 1; i < len(r.calls); i++ {
		g = append(g, r.calls[i].Sub(r.calls[i-1]))
	}
	return g
}

var errBusy = errors.New("busy")

func exp(base time.Duration) backoff.Config {
	return backoff.Config{Strategy: backoff.Exponential, Base: base, Cap: time.Hour}
}

func TestRetrySucceedsAfterFailuresWithBackoffDelays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{errs: []error{errBusy, errBusy}}
		v, err := backoff.Retry(t.Context(), r.op, backoff.RetryOptions{Backoff: exp(time.Second)})
		require.NoError(t, err)
		assert.Equal(t, 3, v)
		assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, r.gaps())
	})
}

func TestRetryStopsAfterAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{errs: []error{errBusy, errBusy, errBusy, errBusy}}
		_, err := backoff.Retry(t.Context(), r.op, backoff.RetryOptions{Backoff: exp(time.Second)})
		assert.ErrorIs(t, err, errBusy)
		assert.Len(t, r.calls, backoff.DefaultAttempts)

		r = &recorder{errs: []error{errBusy, errBusy, errBusy, errBusy}}
		_, err = backoff.Retry(t.Context(), r.op, backoff.RetryOptions{Backoff: exp(time.Second), Attempts: 1})
		assert.ErrorIs(t, err, errBusy)
		assert.Len(t, r.calls, 1)
	})
}

func TestRetryStopsOnPermanent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		perm := backoff.Permanent(errors.New("401"))
		r := &recorder{errs: []error{errBusy, perm, errBusy}}
		_, err := backoff.Retry(t.Context(), r.op, backoff.RetryOptions{Attempts: 10})
		assert.Equal(t, perm, err)
		assert.Len(t, r.calls, 2)
	})
}

func TestRetryHonorsHintClampedToMaxHint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{errs: []error{
			backoff.RetryAfter(errBusy, 10*time.Second),   // longer than the backoff's 1s: honored
			backoff.RetryAfter(errBusy, time.Millisecond), // shorter than 2s: the backoff wins
			backoff.RetryAfter(errBusy, time.Hour),        // clamped to MaxHint
		}}
		_, err := backoff.Retry(t.Context(), r.op, backoff.RetryOptions{
			Backoff: exp(time.Second), Attempts: 4, MaxHint: 30 * time.Second,
		})
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{10 * time.Second, 2 * time.Second, 30 * time.Second}, r.gaps())
	})
}

func TestRetryNeverSleepsPastDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		start := time.Now()
		r := &recorder{errs: []error{errBusy, backoff.RetryAfter(errBusy, 10*time.Second), errBusy}}
		_, err := backoff.Retry(ctx, r.op, backoff.RetryOptions{Backoff: exp(time.Second), Attempts: 5})
		assert.ErrorIs(t, err, errBusy)
		assert.Len(t, r.calls, 2)
		assert.Equal(t, time.Second, time.Since(start), "gave up at once instead of waiting 10s for a 5s deadline")
	})
}

func TestRetryCancelledDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(1500*time.Millisecond, cancel)
		start := time.Now()
		r := &recorder{errs: []error{errBusy, errBusy, errBusy}}
		_, err := backoff.Retry(ctx, r.op, backoff.RetryOptions{Backoff: exp(time.Second), Attempts: 5})
		assert.ErrorIs(t, err, errBusy)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 1500*time.Millisecond, time.Since(start))
		assert.Len(t, r.calls, 2)
	})
}

func TestRetryStopsWhenBudgetDenies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		budget, err := backoff.NewBudget(0.1, 1)
		require.NoError(t, err)
		r := &recorder{errs: []error{errBusy, errBusy, errBusy}}
		_, err = backoff.Retry(t.Context(), r.op, backoff.RetryOptions{Backoff: exp(time.Second), Attempts: 5, Budget: budget})
		assert.ErrorIs(t, err, errBusy)
		assert.Len(t, r.calls, 2, "one token: one retry")
	})
}

func TestRetryRejectsBadOptions(t *testing.T) {
	called := false
	op := func(context.Context) (int, error) { called = true; return 0, nil }
	for _, o := range []backoff.RetryOptions{
		{Attempts: -1},
		{MaxHint: -time.Second},
		{Backoff: backoff.Config{Base: -1}},
	} {
		_, err := backoff.Retry(context.Background(), op, o)
		assert.Error(t, err, "%+v", o)
	}
	assert.False(t, called)
}
