package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/policy"
)

// ejecting returns a Policy of three endpoints that ejects after 3
// failures for [5s, 10s], doubling up to 40s.
func ejecting(t *testing.T, seed uint64, prefer bool) *policy.Policy {
	p, err := policy.New(policy.Config{
		Backoff:   backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: time.Minute, Seed: seed},
		Endpoints: 3, FailoverSpread: 200 * time.Millisecond,
		EjectAfter: 3, EjectBase: 10 * time.Second, EjectCap: 40 * time.Second, PreferFirst: prefer,
	})
	require.NoError(t, err)
	return p
}

// failOnly makes endpoint 0 fail n attempts at at while endpoint 1
// connects after each.
func failOnly(p *policy.Policy, n int, at time.Time) {
	for range n {
		p.Failed(0, errReset, at)
		p.Connected(1)
	}
}

func TestAnEndpointIsEjectedAfterEjectAfterFailuresInARow(t *testing.T) {
	p := ejecting(t, 5, false)
	failOnly(p, 2, t0)
	e := p.Endpoint(0, t0)
	assert.Equal(t, policy.Healthy, e.State)
	assert.Equal(t, 2, e.Failures)
	failOnly(p, 1, t0)
	e = p.Endpoint(0, t0)
	require.Equal(t, policy.Ejected, e.State)
	assert.Equal(t, 1, e.Ejections)
	assert.GreaterOrEqual(t, e.Until.Sub(t0), 5*time.Second)
	assert.LessOrEqual(t, e.Until.Sub(t0), 10*time.Second)
	next, _ := p.Lost(1, time.Hour, errReset, t0.Add(time.Second))
	assert.Equal(t, 2, next)
	next, _ = p.Failed(2, errReset, t0.Add(time.Second))
	assert.Equal(t, 1, next, "endpoint 0 is skipped while ejected: the next round starts at 1")
	assert.Equal(t, policy.Probing, p.Endpoint(0, e.Until).State, "its ejection ended")
}

func TestAHintedFailureIsNotCounted(t *testing.T) {
	p := ejecting(t, 5, false)
	for range 5 {
		p.Failed(0, backoff.RetryAfter(errReset, 30*time.Second), t0)
		p.Connected(1)
	}
	e := p.Endpoint(0, t0)
	assert.Equal(t, policy.Healthy, e.State, "the hint rests it; it is not ejected")
	assert.Zero(t, e.Failures)
}

func TestEjectionGrowsJitteredUpToTheCap(t *testing.T) {
	firsts := map[time.Duration]bool{}
	for seed := uint64(1); seed <= 50; seed++ {
		p := ejecting(t, seed, false)
		at := t0
		failOnly(p, 3, at)
		for k, d := range []time.Duration{10, 20, 40, 40, 40} {
			d *= time.Second
			e := p.Endpoint(0, at)
			require.Equal(t, policy.Ejected, e.State)
			require.Equal(t, k+1, e.Ejections)
			got := e.Until.Sub(at)
			assert.GreaterOrEqual(t, got, d/2, "seed %d, ejection %d", seed, k+1)
			assert.LessOrEqual(t, got, d, "seed %d, ejection %d", seed, k+1)
			if k == 0 {
				firsts[got] = true
			}
			at = e.Until
			failOnly(p, 1, at) // the probe fails
		}
	}
	assert.Greater(t, len(firsts), 40, "jittered: 50 seeds, 50 lengths")
}

func TestNeverEveryEndpointIsEjected(t *testing.T) {
	p := ejecting(t, 5, false)
	at, i := t0, 0
	tried := map[int]int{}
	for range 60 {
		next, d := p.Failed(i, errReset, at)
		ejected := 0
		for j := range 3 {
			if p.Endpoint(j, at).State == policy.Ejected {
				ejected++
			}
		}
		assert.Less(t, ejected, 3, "at %v", at.Sub(t0))
		at, i = at.Add(d.Wait), next
		tried[i]++
	}
	for j := range 3 {
		assert.Greater(t, tried[j], 5, "every endpoint is still tried when all fail")
	}
}

func TestAProbeEjectsAgainOrHeals(t *testing.T) {
	p := ejecting(t, 5, false)
	failOnly(p, 3, t0)
	end := p.Endpoint(0, t0).Until
	next, _ := p.Lost(1, time.Hour, errReset, end)
	require.Equal(t, 2, next)
	next, _ = p.Failed(2, errReset, end)
	require.Equal(t, 0, next, "its ejection ended: probed in turn")
	p.Failed(0, errReset, end)
	e := p.Endpoint(0, end)
	assert.Equal(t, policy.Ejected, e.State, "a failed probe ejects it again")
	assert.Equal(t, 2, e.Ejections)
	p.Connected(0)
	assert.Equal(t, policy.Endpoint{}, p.Endpoint(0, end), "a connection heals it")
}

func TestPreferFirstGoesBackToEndpointZero(t *testing.T) {
	p := ejecting(t, 5, true)
	next, _ := p.Failed(0, errReset, t0)
	require.Equal(t, 1, next)
	p.Connected(1)
	back := p.FailBackAt(1, t0)
	assert.GreaterOrEqual(t, back.Sub(t0), 5*time.Second, "not ejected: a jittered EjectBase")
	assert.LessOrEqual(t, back.Sub(t0), 10*time.Second)
	next, _ = p.Lost(1, time.Hour, errReset, t0)
	assert.Equal(t, 0, next, "preferred, free: before 2")
	failOnly(p, 3, t0)
	assert.Equal(t, p.Endpoint(0, t0).Until, p.FailBackAt(1, t0), "ejected: when its ejection ends")
	assert.True(t, p.FailBackAt(0, t0).IsZero(), "on endpoint 0: none")
	p = ejecting(t, 5, true)
	p.Failed(0, backoff.RetryAfter(errReset, time.Minute), t0)
	p.Connected(1)
	assert.Equal(t, t0.Add(time.Minute), p.FailBackAt(1, t0), "not while it rests")
	assert.True(t, ejecting(t, 5, false).FailBackAt(1, t0).IsZero(), "no PreferFirst: none")
}

// The decision that ejects an endpoint says for how long (Delay.Ejected),
// the others say 0; a connection on an endpoint that was ejected reports
// it healthy again, once.
func TestTheEjectionAndTheRecoveryAreReported(t *testing.T) {
	p := ejecting(t, 5, false)
	for range 2 {
		_, d := p.Failed(0, errReset, t0)
		assert.Zero(t, d.Ejected)
		assert.False(t, p.Connected(1), "never ejected")
	}
	_, d := p.Failed(0, errReset, t0)
	assert.Equal(t, p.Endpoint(0, t0).Until.Sub(t0), d.Ejected)
	assert.Positive(t, d.Ejected)
	assert.False(t, p.Connected(1))
	assert.True(t, p.Connected(0), "healthy again")
	assert.False(t, p.Connected(0), "said once")
}
