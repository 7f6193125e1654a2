package backoff_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/opterr"
)

func mustBreaker(t testing.TB, c backoff.BreakerConfig) *backoff.Breaker {
	t.Helper()
	b, err := backoff.NewBreaker(c)
	require.NoError(t, err)
	return b
}

// assertRefused checks that Allow refuses with ErrOpen and a hint of left.
func assertRefused(t *testing.T, b *backoff.Breaker, left time.Duration) {
	t.Helper()
	err := b.Allow()
	require.ErrorIs(t, err, backoff.ErrOpen)
	d, ok := backoff.RetryAfterHint(err)
	assert.True(t, ok, "no hint in %v", err)
	assert.Equal(t, left, d, "time left in %v", err)
}

// fail records n failures.
func fail(b *backoff.Breaker, n int) {
	for range n {
		b.Record(errBusy)
	}
}

func TestBreakerStateString(t *testing.T) {
	assert.Equal(t, "closed", backoff.Closed.String())
	assert.Equal(t, "open", backoff.Open.String())
	assert.Equal(t, "half-open", backoff.HalfOpen.String())
	assert.Equal(t, "BreakerState(7)", backoff.BreakerState(7).String())
}

func TestNewBreakerRejectsBadConfig(t *testing.T) {
	for _, c := range []struct {
		config backoff.BreakerConfig
		want   string
	}{
		{backoff.BreakerConfig{Failures: -1}, "backoff: Failures -1: negative"},
		{backoff.BreakerConfig{Cooldown: -time.Second}, "backoff: Cooldown -1s: negative"},
		{backoff.BreakerConfig{Cooldown: 25 * time.Hour}, "backoff: Cooldown 25h0m0s: longer than 24h0m0s"},
	} {
		b, err := backoff.NewBreaker(c.config)
		assert.Nil(t, b)
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, backoff.ErrInvalidOptions)
		assert.ErrorIs(t, err, opterr.ErrInvalid)
	}
}

func TestBreakerDefaultsOpenAfterFiveForThirtySeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBreaker(t, backoff.BreakerConfig{})
		assert.Equal(t, backoff.Closed, b.State())
		fail(b, backoff.DefaultFailures-1)
		assert.Equal(t, backoff.Closed, b.State())
		require.NoError(t, b.Allow())
		fail(b, 1)
		assert.Equal(t, backoff.Open, b.State())
		assertRefused(t, b, backoff.DefaultCooldown)
	})
}

func TestBreakerOpensOnlyOnConsecutiveRetryableFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBreaker(t, backoff.BreakerConfig{Failures: 3, Cooldown: time.Minute})
		fail(b, 2)
		b.Record(nil) // a success starts the count again
		fail(b, 2)
		b.Record(backoff.Permanent(errors.New("404")))                // the server answered: not a failure
		b.Record(fmt.Errorf("dial: %w", context.Canceled))            // the caller gave up: not a failure
		b.Record(backoff.RetryAfter(backoff.Permanent(errBusy), 1e9)) // wrapped Permanent: still not
		assert.Equal(t, backoff.Closed, b.State(), "2 failures in a row, then none that count")
		require.NoError(t, b.Allow())

		b.Record(context.DeadlineExceeded) // a timeout is a failure: the third in a row
		assert.Equal(t, backoff.Open, b.State())
		assertRefused(t, b, time.Minute)
	})
}

func TestBreakerOpenRefusesWithTimeLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBreaker(t, backoff.BreakerConfig{Failures: 1, Cooldown: 30 * time.Second})
		fail(b, 1)
		time.Sleep(10 * time.Second)
		err := b.Allow()
		assert.EqualError(t, err, "circuit breaker open: retry after 20s")
		assertRefused(t, b, 20*time.Second)

		b.Record(nil) // a late success of a call let through before it opened
		fail(b, 3)    // and late failures: neither closes it nor lengthens the Cooldown
		assert.Equal(t, backoff.Open, b.State())
		time.Sleep(20*time.Second - time.Nanosecond)
		assertRefused(t, b, time.Nanosecond)
		time.Sleep(time.Nanosecond)
		assert.Equal(t, backoff.HalfOpen, b.State())
	})
}

// halfOpen returns a breaker (Failures 1, Cooldown 1 minute) that has just
// turned half-open.
func halfOpen(t *testing.T) *backoff.Breaker {
	t.Helper()
	b := mustBreaker(t, backoff.BreakerConfig{Failures: 1, Cooldown: time.Minute})
	fail(b, 1)
	time.Sleep(time.Minute)
	require.Equal(t, backoff.HalfOpen, b.State())
	return b
}

func TestBreakerHalfOpenLetsExactlyOneProbeThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := halfOpen(t)
		require.NoError(t, b.Allow(), "the probe")
		for range 3 {
			err := b.Allow()
			assert.EqualError(t, err, "circuit breaker half-open: probe in flight, retry after 1m0s")
			assertRefused(t, b, time.Minute)
		}
		assert.Equal(t, backoff.HalfOpen, b.State())
	})
}

func TestBreakerProbeSuccessCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := halfOpen(t)
		require.NoError(t, b.Allow())
		time.Sleep(time.Second)
		b.Record(nil)
		assert.Equal(t, backoff.Closed, b.State())
		for range 3 {
			assert.NoError(t, b.Allow())
		}
	})
}

func TestBreakerProbeFailureReopensForAnotherCooldown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := halfOpen(t)
		require.NoError(t, b.Allow())
		time.Sleep(time.Second)
		b.Record(errBusy)
		assert.Equal(t, backoff.Open, b.State())
		assertRefused(t, b, time.Minute)
		time.Sleep(time.Minute - time.Nanosecond)
		assertRefused(t, b, time.Nanosecond)
		time.Sleep(time.Nanosecond)
		assert.Equal(t, backoff.HalfOpen, b.State())
		assert.NoError(t, b.Allow(), "the next probe")
	})
}

func TestBreakerLostProbeFreesItsPlaceAfterACooldown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := halfOpen(t)
		require.NoError(t, b.Allow(), "a probe whose caller never calls Record")
		time.Sleep(time.Minute - time.Nanosecond)
		assertRefused(t, b, time.Nanosecond)
		time.Sleep(time.Nanosecond)
		assert.Equal(t, backoff.HalfOpen, b.State())
		require.NoError(t, b.Allow(), "a new probe")
		assertRefused(t, b, time.Minute)
	})
}

func TestBreakerProbeWithoutVerdictFreesItsPlace(t *testing.T) {
	for _, err := range []error{backoff.Permanent(errors.New("400")), context.Canceled} {
		synctest.Test(t, func(t *testing.T) {
			b := halfOpen(t)
			require.NoError(t, b.Allow())
			b.Record(err)
			assert.Equal(t, backoff.HalfOpen, b.State(), "%v decides nothing", err)
			require.NoError(t, b.Allow(), "after %v another probe goes", err)
			assertRefused(t, b, time.Minute)
		})
	}
}

func TestBreakerAllocatesNothingWhileClosed(t *testing.T) {
	b := mustBreaker(t, backoff.BreakerConfig{Failures: 1 << 30})
	perm := backoff.Permanent(errBusy)
	allocs := testing.AllocsPerRun(1000, func() {
		_ = b.Allow()
		b.Record(nil)
		_ = b.Allow()
		b.Record(errBusy)
		b.Record(perm)
		b.Record(context.Canceled)
		_ = b.State()
	})
	assert.Zero(t, allocs)
	assert.Equal(t, backoff.Closed, b.State())
}
