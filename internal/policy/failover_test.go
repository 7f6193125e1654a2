package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/policy"
)

// three returns a Policy of three endpoints whose backoff is predictable:
// Exponential, Base 1s, so a round's delay is 1s, 2s, 4s...
func three(t *testing.T) *policy.Policy {
	p, err := policy.New(policy.Config{
		Backoff:   backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: time.Minute, Seed: 5},
		Endpoints: 3, FailoverSpread: 200 * time.Millisecond,
	})
	require.NoError(t, err)
	return p
}

func TestFailoverGoesToTheNextEndpointAtOnce(t *testing.T) {
	p := three(t)
	next, d := p.Failed(0, errReset, t0)
	assert.Equal(t, 1, next)
	assert.Equal(t, policy.ReasonFailover, d.Reason)
	assert.Less(t, d.Wait, 200*time.Millisecond, "within rand[0, FailoverSpread)")
	next, d = p.Failed(1, errReset, t0)
	assert.Equal(t, 2, next)
	assert.Equal(t, policy.ReasonFailover, d.Reason)
}

func TestBackoffAdvancesOncePerRound(t *testing.T) {
	p := three(t)
	for round, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		var d policy.Delay
		next := 0
		for range 3 {
			next, d = p.Failed(next, errReset, t0)
		}
		assert.Equal(t, policy.ReasonBackoff, d.Reason, "round %d", round)
		assert.Equal(t, want, d.Wait, "round %d: every endpoint failed once, the backoff advanced once", round)
		assert.Equal(t, 0, next, "the next round starts after the last endpoint")
	}
}

func TestAHintRestsOnlyItsEndpoint(t *testing.T) {
	p := three(t)
	next, _ := p.Failed(0, errReset, t0)
	require.Equal(t, 1, next)
	next, d := p.Failed(1, backoff.RetryAfter(errReset, 30*time.Second), t0)
	assert.Equal(t, 2, next, "endpoint 1 rests; endpoint 2 is tried at once")
	assert.Equal(t, policy.ReasonFailover, d.Reason)
	assert.Equal(t, 30*time.Second, d.Hint)
	next, d = p.Failed(2, errReset, t0)
	assert.Equal(t, 0, next, "the round is over; endpoint 0 does not rest")
	assert.Equal(t, time.Second, d.Wait, "the backoff, not endpoint 1's 30s")

	// A round later endpoint 1 still rests: it is skipped.
	next, _ = p.Failed(0, errReset, t0.Add(time.Second))
	assert.Equal(t, 2, next)
	// Once its rest is over it is tried again.
	next, _ = p.Failed(2, errReset, t0.Add(31*time.Second))
	assert.Equal(t, 1, next)
}

func TestARoundWhereEveryEndpointRestsWaitsForTheEarliest(t *testing.T) {
	p := three(t)
	hints := []time.Duration{10 * time.Second, 20 * time.Second, 5 * time.Second}
	var next int
	var d policy.Delay
	for i, h := range hints {
		next, d = p.Failed(i, backoff.RetryAfter(errReset, h), t0)
	}
	assert.Equal(t, 2, next, "endpoint 2's rest ends first")
	assert.Equal(t, 5*time.Second, d.Wait)
	assert.Equal(t, policy.ReasonHint, d.Reason)
}

func TestARoundAfterAStableLossStartsWithTheFirstRetry(t *testing.T) {
	p := three(t)
	next, d := p.Lost(1, time.Hour, errReset, t0)
	assert.Equal(t, 2, next, "a lost connection fails over at once")
	assert.Equal(t, policy.ReasonFailover, d.Reason)
	next, _ = p.Failed(2, errReset, t0)
	_, d = p.Failed(next, errReset, t0)
	assert.Equal(t, policy.ReasonFirstRetry, d.Reason, "the round that began with a stable loss ends with rand[0, Base)")
	assert.Less(t, d.Wait, time.Second)

	// A flapping loss keeps the backoff growing: the next round waits Base,
	// then 2*Base.
	p = three(t)
	for _, want := range []time.Duration{time.Second, 2 * time.Second} {
		next, _ = p.Lost(0, time.Second, errReset, t0)
		next, _ = p.Failed(next, errReset, t0)
		_, d = p.Failed(next, errReset, t0)
		assert.Equal(t, want, d.Wait)
		assert.Equal(t, policy.ReasonBackoff, d.Reason)
	}
}

func TestAConnectionEndsTheRound(t *testing.T) {
	p := three(t)
	next, _ := p.Failed(0, errReset, t0)
	p.Connected(next)
	next, d := p.Lost(next, time.Second, errReset, t0)
	assert.Equal(t, 2, next)
	assert.Equal(t, policy.ReasonFailover, d.Reason, "endpoint 0's failure belonged to the round before the connection")
	next, d = p.Failed(next, errReset, t0)
	assert.Equal(t, 0, next)
	assert.Equal(t, policy.ReasonFailover, d.Reason, "endpoint 0 is tried in this round, no backoff yet")
}

func TestOneEndpointIsTheClassicPolicy(t *testing.T) {
	p, err := policy.New(policy.Config{Backoff: backoff.Config{Strategy: backoff.Exponential, Base: time.Second}})
	require.NoError(t, err)
	assert.Equal(t, 1, p.Endpoints())
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		next, d := p.Failed(0, errReset, t0)
		assert.Equal(t, 0, next)
		assert.Equal(t, want, d.Wait, "every attempt is a round")
	}
}

// FailoverSpread 0 means Base/2, the default examples/herd -replicas chose
// (BENCHMARKS.md, "Choosing FailoverSpread's default").
func TestFailoverSpreadDefaultsToHalfTheBase(t *testing.T) {
	var hi time.Duration
	for seed := uint64(1); seed <= 200; seed++ {
		p, err := policy.New(policy.Config{Backoff: backoff.Config{Base: time.Second, Seed: seed}, Endpoints: 2})
		require.NoError(t, err)
		_, d := p.Failed(0, errReset, t0)
		require.Equal(t, policy.ReasonFailover, d.Reason)
		require.Less(t, d.Wait, 500*time.Millisecond, "within rand[0, Base/2)")
		hi = max(hi, d.Wait)
	}
	assert.Greater(t, hi, 450*time.Millisecond, "over the whole of [0, Base/2)")
}
