package policy_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/policy"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var errReset = errors.New("connection reset")

// one is a Policy of one endpoint, as most supervisors have, and the time
// of its decisions.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func failed(p *policy.Policy, err error) policy.Delay {
	_, d := p.Failed(0, err, t0)
	return d
}

func lost(p *policy.Policy, uptime time.Duration, err error) policy.Delay {
	_, d := p.Lost(0, uptime, err, t0)
	return d
}

func TestFirstRetryAfterAStableLossIsBelowBase(t *testing.T) {
	p, err := policy.New(policy.Config{Backoff: backoff.Config{Base: time.Second, Seed: 7}})
	require.NoError(t, err)
	var lo, hi time.Duration = time.Hour, 0
	for range 2000 {
		d := lost(p, time.Hour, errReset)
		require.Equal(t, policy.ReasonFirstRetry, d.Reason)
		require.GreaterOrEqual(t, d.Wait, time.Duration(0))
		require.Less(t, d.Wait, time.Second)
		lo, hi = min(lo, d.Wait), max(hi, d.Wait)
	}
	assert.Less(t, lo, 50*time.Millisecond, "spread over [0, Base): near 0")
	assert.Greater(t, hi, 950*time.Millisecond, "spread over [0, Base): near Base")
}

func TestFlappingLossKeepsTheBackoffGrowing(t *testing.T) {
	p, err := policy.New(policy.Config{Backoff: backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: time.Minute}})
	require.NoError(t, err)
	assert.Equal(t, time.Second, failed(p, errReset).Wait)
	assert.Equal(t, 2*time.Second, lost(p, time.Second, errReset).Wait, "lived 1s < StableAfter 30s: a retry like any other")
	assert.Equal(t, policy.ReasonFirstRetry, lost(p, 30*time.Second, errReset).Reason, "lived StableAfter: reset")
	assert.Equal(t, time.Second, failed(p, errReset).Wait, "the reset took")
}

func TestHintLengthensAndIsClamped(t *testing.T) {
	p, err := policy.New(policy.Config{Backoff: backoff.Config{Strategy: backoff.Exponential, Base: time.Second}, MaxHint: time.Minute})
	require.NoError(t, err)
	d := failed(p, backoff.RetryAfter(errReset, time.Hour))
	assert.Equal(t, policy.Delay{Wait: time.Minute, Reason: policy.ReasonHint, Hint: time.Minute, Rest: time.Minute}, d)
	d = failed(p, backoff.RetryAfter(errReset, time.Millisecond))
	assert.Equal(t, policy.Delay{Wait: 2 * time.Second, Reason: policy.ReasonBackoff, Hint: time.Millisecond, Rest: time.Millisecond}, d, "a shorter hint never shortens (and rests the endpoint that long)")
}

func TestBudgetRefusalWaitsCap(t *testing.T) {
	b, err := backoff.NewBudget(0.1, 1)
	require.NoError(t, err)
	p, err := policy.New(policy.Config{Backoff: backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: 10 * time.Second}, Budget: b})
	require.NoError(t, err)
	p.Start()
	assert.Equal(t, policy.ReasonBackoff, failed(p, errReset).Reason, "the one token")
	d := failed(p, errReset)
	assert.Equal(t, policy.Delay{Wait: 10 * time.Second, Reason: policy.ReasonBudget}, d)
}

func TestSeededPoliciesAreReproducible(t *testing.T) {
	draw := func(seed uint64) []time.Duration {
		p, err := policy.New(policy.Config{Backoff: backoff.Config{Seed: seed}})
		require.NoError(t, err)
		var out []time.Duration
		for range 20 {
			out = append(out, lost(p, time.Hour, errReset).Wait, failed(p, errReset).Wait)
		}
		return out
	}
	assert.Equal(t, draw(3), draw(3))
	assert.NotEqual(t, draw(3), draw(4))
}

func TestReasonNames(t *testing.T) {
	assert.Equal(t, "first-retry", policy.ReasonFirstRetry.String())
	assert.Equal(t, "reason(9)", policy.Reason(9).String())
}
