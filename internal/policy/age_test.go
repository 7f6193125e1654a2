package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/policy"
)

// With decorrelated jitter a wait is never longer than half the outage so
// far (Base at least), but for the first wait of the outage: every
// client's first attempt after the server is back comes within 1.5 times
// the outage (examples/herd: the last of 10,000 back at about 48 s after
// 30 s down, where the plain decorrelated loop takes 87 s, equal jitter
// 61 s and cenkalti/backoff's defaults 58 s).
func TestDecorrelatedWaitsAreBoundedByTheOutagesAge(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		p, err := policy.New(policy.Config{Backoff: backoff.Config{Seed: seed}})
		require.NoError(t, err)
		at := t0
		_, d := p.Lost(0, time.Hour, errReset, at)
		require.Equal(t, policy.ReasonFirstRetry, d.Reason)
		at = at.Add(d.Wait)
		for n := 0; at.Sub(t0) < 10*time.Minute; n++ {
			_, d = p.Failed(0, errReset, at)
			require.Equal(t, policy.ReasonBackoff, d.Reason)
			if n > 0 {
				require.LessOrEqual(t, d.Wait, max(time.Second, at.Sub(t0)/2), "seed %d, wait %d at %v into the outage", seed, n, at.Sub(t0))
			}
			require.LessOrEqual(t, d.Wait, time.Minute, "Cap still holds")
			at = at.Add(d.Wait)
		}
	}
}

// The first wait of an outage keeps its whole draw from [Base, 3*Base]: a
// fleet whose first attempts failed at one instant (all started while the
// server was down) stays spread out instead of retrying in lockstep at
// Base.
func TestTheFirstWaitOfAnOutageIsNotBounded(t *testing.T) {
	var hi time.Duration
	for seed := uint64(1); seed <= 200; seed++ {
		p, err := policy.New(policy.Config{Backoff: backoff.Config{Seed: seed}})
		require.NoError(t, err)
		hi = max(hi, failed(p, errReset).Wait) // 0s into the outage
	}
	assert.Greater(t, hi, 2500*time.Millisecond, "drawn from [1s, 3s], not cut to the outage's age")
}

// A connection that lived StableAfter ends the outage: the next one's age
// counts from its loss, not from the old outage's start.
func TestTheAgeCountsFromTheStableLoss(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		p, err := policy.New(policy.Config{Backoff: backoff.Config{Seed: seed}})
		require.NoError(t, err)
		at := t0
		for range 30 { // a long outage: the backoff has grown to Cap
			_, d := p.Failed(0, errReset, at)
			at = at.Add(d.Wait)
		}
		p.Connected(0)
		at = at.Add(time.Hour)
		loss := at
		_, d := p.Lost(0, time.Hour, errReset, at) // stable: reset, the first retry
		at = at.Add(d.Wait)
		_, d = p.Failed(0, errReset, at) // the outage's first draw
		at = at.Add(d.Wait)
		_, d = p.Failed(0, errReset, at)
		require.LessOrEqual(t, d.Wait, max(time.Second, at.Sub(loss)/2), "seed %d: bounded by the new outage's age", seed)
	}
}

// AgeBound sets the fraction; a negative one takes the bound away (the
// policy before it, which examples/herd can still show).
func TestAgeBoundIsAFraction(t *testing.T) {
	longest := func(bound float64) (ratio float64) {
		for seed := uint64(1); seed <= 50; seed++ {
			p, err := policy.New(policy.Config{Backoff: backoff.Config{Seed: seed}, AgeBound: bound})
			require.NoError(t, err)
			at := t0.Add(time.Second)
			_, _ = p.Failed(0, errReset, t0)
			for range 12 {
				_, d := p.Failed(0, errReset, at)
				if age := at.Sub(t0); age > 3*time.Second {
					ratio = max(ratio, float64(d.Wait)/float64(age))
				}
				at = at.Add(d.Wait)
			}
		}
		return ratio
	}
	assert.LessOrEqual(t, longest(0.75), 0.75)
	assert.Greater(t, longest(0.75), 0.7, "the bound is reached")
	assert.LessOrEqual(t, longest(0), policy.DefaultAgeBound, "0 means the default")
	assert.Greater(t, longest(-1), 1.0, "no bound: a wait may be longer than the outage so far")
}

// The other strategies are the progressions the program chose: no bound.
func TestOnlyDecorrelatedIsBoundedByAge(t *testing.T) {
	p, err := policy.New(policy.Config{Backoff: backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: time.Hour}})
	require.NoError(t, err)
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
		assert.Equal(t, want, failed(p, errReset).Wait, "all at t0: an age bound would cut these to 1s")
	}
}
