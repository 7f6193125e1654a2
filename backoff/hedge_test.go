package backoff_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/opterr"
)

// forever is a latency no test waits out: such a copy returns only when
// its context is cancelled.
const forever = 1000 * time.Hour

// step is what one copy does: return v, err after a latency.
type step struct {
	after time.Duration
	v     int
	err   error
}

// copies is an op whose n-th call follows steps[n] (a call past the end
// waits forever) and that notes when every copy started, how many ran at
// once, which saw their context cancelled and how many returned.
type copies struct {
	t0    time.Time
	steps []step

	mu         sync.Mutex
	starts     []time.Duration // since t0
	running    int
	maxRunning int
	cancelled  []int
	returned   int
}

func newCopies(steps ...step) *copies { return &copies{t0: time.Now(), steps: steps} }

func (c *copies) op(ctx context.Context) (int, error) {
	c.mu.Lock()
	n := len(c.starts)
	c.starts = append(c.starts, time.Since(c.t0))
	c.running++
	c.maxRunning = max(c.maxRunning, c.running)
	s := step{after: forever}
	if n < len(c.steps) {
		s = c.steps[n]
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.running--
		c.returned++
		c.mu.Unlock()
	}()
	timer := time.NewTimer(s.after)
	defer timer.Stop()
	select {
	case <-timer.C:
		return s.v, s.err
	case <-ctx.Done():
		c.mu.Lock()
		c.cancelled = append(c.cancelled, n)
		c.mu.Unlock()
		return -1, ctx.Err()
	}
}

// check asserts the copies started at starts and that every one had
// returned when Hedge did.
func (c *copies) check(t *testing.T, starts ...time.Duration) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	assert.Equal(t, starts, c.starts, "copies' start times")
	assert.Equal(t, len(c.starts), c.returned, "copies returned before Hedge did")
	assert.Zero(t, c.running)
}

func (c *copies) cancelledCopies() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.cancelled...)
}

const ms = time.Millisecond

// drained returns a Budget (ratio 0.5, max 2) with no token left.
func drained(t *testing.T) *backoff.Budget {
	t.Helper()
	b, err := backoff.NewBudget(0.5, 2)
	require.NoError(t, err)
	require.True(t, b.TryRetry())
	require.True(t, b.TryRetry())
	return b
}

func TestHedgeFastCopyIsTheOnlyOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		budget := drained(t)
		c := newCopies(step{after: 5 * ms, v: 1})
		v, err := backoff.Hedge(t.Context(), c.op, backoff.HedgeOptions{Delay: 20 * ms, Budget: budget})
		require.NoError(t, err)
		assert.Equal(t, 1, v)
		assert.Equal(t, 5*ms, time.Since(c.t0))
		c.check(t, 0)
		assert.Equal(t, 0.5, backoff.Tokens(budget), "one request deposited, no copy spent")
	})
}

func TestHedgeSecondCopyWinsAndTheFirstIsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCopies(step{after: time.Second, v: 1}, step{after: 10 * ms, v: 2})
		v, err := backoff.Hedge(t.Context(), c.op, backoff.HedgeOptions{Delay: 20 * ms})
		require.NoError(t, err)
		assert.Equal(t, 2, v)
		assert.Equal(t, 30*ms, time.Since(c.t0))
		c.check(t, 0, 20*ms)
		assert.Equal(t, []int{0}, c.cancelledCopies())
	})
}

func TestHedgeStartsACopyEveryDelayUpToMax(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCopies(step{after: forever}, step{after: forever}, step{after: 5 * ms, v: 3})
		v, err := backoff.Hedge(t.Context(), c.op, backoff.HedgeOptions{Delay: 20 * ms, Max: 3})
		require.NoError(t, err)
		assert.Equal(t, 3, v)
		assert.Equal(t, 45*ms, time.Since(c.t0))
		c.check(t, 0, 20*ms, 40*ms)
		assert.Equal(t, 3, c.maxRunning)
		assert.ElementsMatch(t, []int{0, 1}, c.cancelledCopies())

		// All slow: no fourth copy; the first to finish wins.
		c = newCopies(step{after: time.Second, v: 1}, step{after: time.Second, v: 2}, step{after: time.Second, v: 3})
		v, err = backoff.Hedge(t.Context(), c.op, backoff.HedgeOptions{Delay: 20 * ms, Max: 3})
		require.NoError(t, err)
		assert.Equal(t, 1, v)
		assert.Equal(t, time.Second, time.Since(c.t0))
		c.check(t, 0, 20*ms, 40*ms)
	})
}

func TestHedgeMaxOneNeverHedges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCopies(step{after: time.Second, v: 1})
		v, err := backoff.Hedge(t.Context(), c.op, backoff.HedgeOptions{Delay: 20 * ms, Max: 1})
		require.NoError(t, err)
		assert.Equal(t, 1, v)
		c.check(t, 0)
	})
}

func TestHedgePermanentErrorEndsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		perm := backoff.Permanent(errors.New("401"))
		c := newCopies(step{after: forever}, step{after: 5 * ms, err: perm})
		_, err := backoff.Hedge(t.Context(), c.op, backoff.HedgeOptions{Delay: 20 * ms, Max: 3})
		assert.Equal(t, perm, err)
		assert.Equal(t, 25*ms, time.Since(c.t0))
		c.check(t, 0, 20*ms)
		assert.Equal(t, []int{0}, c.cancelledCopies())
		time.Sleep(time.Second)
		c.check(t, 0, 20*ms) // and no third copy later
	})
}

func TestHedgeReturnsTheLastErrorWhenEveryCopyFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errA, errB := errors.New("a"), errors.New("b")
		c := newCopies(step{after: 30 * ms, err: errA}, step{after: 30 * ms, err: errB})
		_, err := backoff.Hedge(t.Context(), c.op, backoff.HedgeOptions{Delay: 20 * ms})
		assert.Equal(t, errB, err)
		assert.Equal(t, 50*ms, time.Since(c.t0))
		c.check(t, 0, 20*ms)
		assert.Empty(t, c.cancelledCopies())
	})
}

func TestHedgeFailedCopyStartsTheNextAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCopies(step{after: 5 * ms, err: errBusy}, step{after: 5 * ms, v: 2})
		v, err := backoff.Hedge(t.Context(), c.op, backoff.HedgeOptions{Delay: 20 * ms})
		require.NoError(t, err)
		assert.Equal(t, 2, v)
		c.check(t, 0, 5*ms)

		// The next copy after that waits a whole Delay from the start of
		// the one before.
		c = newCopies(step{after: 5 * ms, err: errBusy}, step{after: forever}, step{after: 1 * ms, v: 3})
		v, err = backoff.Hedge(t.Context(), c.op, backoff.HedgeOptions{Delay: 20 * ms, Max: 3})
		require.NoError(t, err)
		assert.Equal(t, 3, v)
		c.check(t, 0, 5*ms, 25*ms)
	})
}

func TestHedgeBudgetRefusalMeansNoExtraCopy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		budget := drained(t)
		// 0.5 tokens after this call's request: the hedge is refused.
		c := newCopies(step{after: time.Second, v: 1})
		v, err := backoff.Hedge(t.Context(), c.op, backoff.HedgeOptions{Delay: 20 * ms, Max: 3, Budget: budget})
		require.NoError(t, err)
		assert.Equal(t, 1, v)
		assert.Equal(t, time.Second, time.Since(c.t0))
		c.check(t, 0)

		// 1 token after this one's: one hedge, and the second is refused.
		c = newCopies(step{after: time.Second, v: 1}, step{after: time.Second, v: 2})
		v, err = backoff.Hedge(t.Context(), c.op, backoff.HedgeOptions{Delay: 20 * ms, Max: 3, Budget: budget})
		require.NoError(t, err)
		assert.Equal(t, 1, v)
		c.check(t, 0, 20*ms)
		assert.Zero(t, backoff.Tokens(budget))

		// A failure with the budget spent: its error at once, no copy.
		c = newCopies(step{after: 5 * ms, err: errBusy})
		_, err = backoff.Hedge(t.Context(), c.op, backoff.HedgeOptions{Delay: 20 * ms, Budget: budget})
		assert.Equal(t, errBusy, err)
		assert.Equal(t, 5*ms, time.Since(c.t0))
		c.check(t, 0)
	})
}

func TestHedgeEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(30*ms, cancel)
		c := newCopies()
		_, err := backoff.Hedge(ctx, c.op, backoff.HedgeOptions{Delay: 20 * ms, Max: 3})
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 30*ms, time.Since(c.t0))
		c.check(t, 0, 20*ms)
		assert.ElementsMatch(t, []int{0, 1}, c.cancelledCopies())

		// Ended before the Delay: no copy starts after.
		ctx, cancel = context.WithCancel(t.Context())
		time.AfterFunc(10*ms, cancel)
		c = newCopies(step{after: 15 * ms, err: errBusy})
		_, err = backoff.Hedge(ctx, c.op, backoff.HedgeOptions{Delay: 20 * ms})
		assert.ErrorIs(t, err, context.Canceled)
		time.Sleep(time.Second)
		c.check(t, 0)
	})
}

func TestHedgeRejectsBadOptions(t *testing.T) {
	called := false
	op := func(context.Context) (int, error) { called = true; return 0, nil }
	for _, c := range []struct {
		o    backoff.HedgeOptions
		want string
	}{
		{backoff.HedgeOptions{}, "backoff: Delay 0s: not positive"},
		{backoff.HedgeOptions{Delay: -ms}, "backoff: Delay -1ms: not positive"},
		{backoff.HedgeOptions{Delay: ms, Max: -1}, "backoff: Max -1: negative"},
	} {
		_, err := backoff.Hedge(context.Background(), op, c.o)
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, backoff.ErrInvalidOptions)
		assert.ErrorIs(t, err, opterr.ErrInvalid)
	}
	assert.False(t, called)
}
