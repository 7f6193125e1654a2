package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/policy"
)

// A server's hint of Base or more is the wait, even when the backoff has
// grown past it: a client planned for a slot 3 s away comes in 3 s, not
// after its 8 s draw (the old rule's max); the progression goes on under
// the hint.
func TestAHintOfBaseOrMoreIsTheWait(t *testing.T) {
	p, err := policy.New(policy.Config{Backoff: backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: time.Minute}})
	require.NoError(t, err)
	now := t0
	fail := func(err error) policy.Delay { // each attempt when the last wait ended
		_, d := p.Failed(0, err, now)
		now = now.Add(d.Wait)
		return d
	}
	for _, want := range []time.Duration{1, 2, 4} {
		require.Equal(t, want*time.Second, fail(errReset).Wait)
	}
	d := fail(backoff.RetryAfter(errReset, 3*time.Second))
	assert.Equal(t, policy.Delay{Wait: 3 * time.Second, Reason: policy.ReasonHint, Hint: 3 * time.Second, Rest: 3 * time.Second}, d)
	assert.Equal(t, 16*time.Second, fail(errReset).Wait, "the progression went on under the hint")
	d = fail(backoff.RetryAfter(errReset, 500*time.Millisecond))
	assert.Equal(t, 32*time.Second, d.Wait, "below Base a hint is a floor, as before")
}

func TestAHintedRoundStillAsksTheBudget(t *testing.T) {
	b, err := backoff.NewBudget(0.1, 1)
	require.NoError(t, err)
	p, err := policy.New(policy.Config{Backoff: backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: 10 * time.Second}, Budget: b})
	require.NoError(t, err)
	p.Start()
	_, d := p.Failed(0, backoff.RetryAfter(errReset, 2*time.Second), t0)
	assert.Equal(t, policy.ReasonHint, d.Reason, "the one token")
	_, d = p.Failed(0, backoff.RetryAfter(errReset, 2*time.Second), t0.Add(2*time.Second))
	assert.Equal(t, policy.Delay{Wait: 10 * time.Second, Reason: policy.ReasonBudget, Hint: 2 * time.Second, Rest: 2 * time.Second}, d)
}
