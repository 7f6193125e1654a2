package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/policy"
)

// The promise README and supervisor/doc.go make: with decorrelated
// jitter, no hint and no Budget, a client's first attempt after the server
// is back comes within 1.5 times the outage or 4 Base, whichever is
// longer. The outage runs from the loss of the last connection that lived
// StableAfter; a connection that broke sooner (a flap) does not end it.
func promise(outage time.Duration) time.Duration { return max(outage*3/2, 4*time.Second) }

// retryUntil makes the attempts of p, refused at once, from at (after a
// first wait) until the server is back at up, and returns the first
// attempt's time at or after up.
func retryUntil(p *policy.Policy, at, up time.Time) time.Time {
	for at.Before(up) {
		_, d := p.Failed(0, errReset, at)
		at = at.Add(d.Wait)
	}
	return at
}

var outages = []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
	3 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute}

func TestOutageBoundAfterAStableLoss(t *testing.T) {
	worst := func(ageBound float64) (ratio float64) {
		for _, down := range outages {
			for seed := uint64(1); seed <= 300; seed++ {
				p, err := policy.New(policy.Config{Backoff: backoff.Config{Seed: seed}, AgeBound: ageBound})
				require.NoError(t, err)
				_, d := p.Lost(0, time.Hour, errReset, t0)
				back := retryUntil(p, t0.Add(d.Wait), t0.Add(down)).Sub(t0)
				ratio = max(ratio, float64(back)/float64(promise(down)))
			}
		}
		return ratio
	}
	assert.LessOrEqual(t, worst(0), 1.0)
	assert.Greater(t, worst(0), 0.95, "the bound is tight")
	assert.Greater(t, worst(-1), 1.2, "without the age bound the promise does not hold")
}

// A flapping connection (lived under StableAfter) is lost after an outage
// that grew the backoff, and the server is away again: the promise holds
// from the stable loss, and the backoff is not reset.
func TestOutageBoundAfterAFlappingLoss(t *testing.T) {
	for _, before := range []time.Duration{2 * time.Second, 10 * time.Second, time.Minute, 10 * time.Minute} {
		for _, uptime := range []time.Duration{100 * time.Millisecond, 3800 * time.Millisecond, 29 * time.Second} {
			for _, down := range outages {
				for seed := uint64(1); seed <= 40; seed++ {
					p, err := policy.New(policy.Config{Backoff: backoff.Config{Seed: seed}})
					require.NoError(t, err)
					_, d := p.Lost(0, time.Hour, errReset, t0)
					at := retryUntil(p, t0.Add(d.Wait), t0.Add(before))
					p.Connected(0)
					loss := at.Add(uptime)
					_, d = p.Lost(0, uptime, errReset, loss)
					require.Equal(t, policy.ReasonBackoff, d.Reason, "a flap does not reset the backoff")
					up := loss.Add(down)
					back := retryUntil(p, loss.Add(d.Wait), up)
					require.LessOrEqual(t, back.Sub(t0), promise(up.Sub(t0)),
						"seed %d: %v down, %v up, %v down again", seed, before, uptime, down)
				}
			}
		}
	}
}

// A server that accepts every attempt and drops it 100 ms later: the
// backoff is never reset, its waits grow to Cap, and a client connects a
// few dozen times in ten minutes, not once a second.
func TestAFlappingServerIsNotHammered(t *testing.T) {
	for seed := uint64(1); seed <= 100; seed++ {
		p, err := policy.New(policy.Config{Backoff: backoff.Config{Seed: seed}})
		require.NoError(t, err)
		at := t0
		_, d := p.Lost(0, time.Hour, errReset, at)
		require.Equal(t, policy.ReasonFirstRetry, d.Reason)
		connections, longest := 0, time.Duration(0)
		for at.Sub(t0) < 10*time.Minute {
			at = at.Add(d.Wait)
			p.Connected(0)
			connections++
			at = at.Add(100 * time.Millisecond)
			_, d = p.Lost(0, 100*time.Millisecond, errReset, at)
			require.Equal(t, policy.ReasonBackoff, d.Reason, "seed %d: a flap reset the backoff", seed)
			longest = max(longest, d.Wait)
		}
		assert.LessOrEqual(t, connections, 80, "seed %d", seed)
		assert.GreaterOrEqual(t, longest, 45*time.Second, "seed %d: the waits grew near Cap", seed)
	}
}

// A fleet whose connections broke at one instant after one outage shares
// its age bound: the waits over it are spread over its upper half, not
// all at the bound.
func TestAFleetThatFlappedAtOneInstantStaysSpread(t *testing.T) {
	waits := map[time.Duration]int{}
	const n = 1000
	for seed := uint64(1); seed <= n; seed++ {
		p, err := policy.New(policy.Config{Backoff: backoff.Config{Seed: seed}})
		require.NoError(t, err)
		for i := range 20 { // never connected: 20 failed attempts, 1 s apart
			_, _ = p.Failed(0, errReset, t0.Add(time.Duration(i)*time.Second))
		}
		p.Connected(0)
		_, d := p.Lost(0, 5*time.Second, errReset, t0.Add(30*time.Second))
		require.LessOrEqual(t, d.Wait, 15*time.Second, "half the outage so far")
		waits[d.Wait.Round(10*time.Millisecond)]++
	}
	most := 0
	for _, k := range waits {
		most = max(most, k)
	}
	assert.Less(t, most, n/50, "at most 2%% of the fleet in one 10 ms window")
}
