package backoff_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/opterr"
)

func mustNew(t testing.TB, c backoff.Config) *backoff.Backoff {
	t.Helper()
	b, err := backoff.New(c)
	require.NoError(t, err)
	return b
}

func TestZeroConfigIsDecorrelatedOneSecondOneMinute(t *testing.T) {
	b := mustNew(t, backoff.Config{})
	assert.Equal(t, backoff.Config{Strategy: backoff.Decorrelated, Base: time.Second, Cap: time.Minute}, b.Config())
}

func TestDecorrelatedStaysWithinBaseAndThreeTimesPrevious(t *testing.T) {
	base, cap := 100*time.Millisecond, 5*time.Second
	b := mustNew(t, backoff.Config{Base: base, Cap: cap, Seed: 1})
	prev := base
	sawCap := false
	for i := range 1000 {
		d := b.Next()
		require.GreaterOrEqual(t, d, base, "next %d", i)
		require.LessOrEqual(t, d, min(cap, 3*prev), "next %d after %v", i, prev)
		sawCap = sawCap || d == cap
		prev = d
	}
	assert.True(t, sawCap, "1000 draws never reached Cap")
	assert.Equal(t, 1000, b.Attempt())
}

func TestExponentialDoublesUpToCap(t *testing.T) {
	b := mustNew(t, backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: 10 * time.Second})
	var got []time.Duration
	for range 6 {
		got = append(got, b.Next())
	}
	assert.Equal(t, []time.Duration{1e9, 2e9, 4e9, 8e9, 10e9, 10e9}, got)
	b.Reset()
	assert.Equal(t, 0, b.Attempt())
	assert.Equal(t, time.Second, b.Next())
}

func TestFullAndEqualJitterBounds(t *testing.T) {
	base, cap := 10*time.Millisecond, time.Second
	for _, s := range []backoff.Strategy{backoff.Full, backoff.Equal} {
		t.Run(s.String(), func(t *testing.T) {
			b := mustNew(t, backoff.Config{Strategy: s, Base: base, Cap: cap, Seed: 7})
			for n := range 200 {
				v := min(cap, base<<min(n, 20))
				lo := time.Duration(0)
				if s == backoff.Equal {
					lo = v - v/2
				}
				d := b.Next()
				require.GreaterOrEqual(t, d, lo, "n=%d", n)
				require.LessOrEqual(t, d, v, "n=%d", n)
			}
		})
	}
}

func TestJitterIsSpreadNotConstant(t *testing.T) {
	// A jittered strategy that always returned the same value would pass the
	// bound tests above; this one fails it.
	for _, s := range []backoff.Strategy{backoff.Decorrelated, backoff.Full, backoff.Equal} {
		cap := time.Second // Full and Equal: v = Cap from the first draw
		if s == backoff.Decorrelated {
			cap = 10 * time.Second // Base == Cap would pin it at Cap
		}
		b := mustNew(t, backoff.Config{Strategy: s, Base: time.Second, Cap: cap, Seed: 3})
		seen := map[time.Duration]bool{}
		var sum time.Duration
		const n = 2000
		for range n {
			d := b.Next()
			seen[d] = true
			sum += d
		}
		assert.Greater(t, len(seen), n/2, "%v: %d distinct delays in %d", s, len(seen), n)
		mean := sum / n
		switch s {
		case backoff.Full: // rand[0, 1s]
			assert.InDelta(t, 500*time.Millisecond, mean, float64(50*time.Millisecond), "%v mean", s)
		case backoff.Equal: // 0.5s + rand[0, 0.5s]
			assert.InDelta(t, 750*time.Millisecond, mean, float64(50*time.Millisecond), "%v mean", s)
		}
	}
}

func TestSeedReproducesAndBackoffsAreIndependent(t *testing.T) {
	a := mustNew(t, backoff.Config{Seed: 42})
	b := mustNew(t, backoff.Config{Seed: 42})
	c := mustNew(t, backoff.Config{Seed: 43})
	x := mustNew(t, backoff.Config{}) // randomly seeded
	y := mustNew(t, backoff.Config{})
	same, diffSeed, diffRandom := true, false, false
	for range 20 {
		da, db, dc := a.Next(), b.Next(), c.Next()
		same = same && da == db
		diffSeed = diffSeed || da != dc
		diffRandom = diffRandom || x.Next() != y.Next()
	}
	assert.True(t, same, "same seed, different sequences")
	assert.True(t, diffSeed, "different seeds, same sequence")
	assert.True(t, diffRandom, "two crypto-seeded Backoffs drew the same sequence")
}

func TestValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		c    backoff.Config
		want string
	}{
		{backoff.Config{Base: -1}, "Base"},
		{backoff.Config{Cap: -time.Second}, "Cap"},
		{backoff.Config{Base: 2 * time.Second, Cap: time.Second}, "backoff: Cap 1s: shorter than Base 2s"},
		{backoff.Config{Base: 2 * time.Minute}, "shorter than Base"}, // default Cap < Base
		{backoff.Config{Cap: 100 * 365 * 24 * time.Hour}, "Cap"},
		{backoff.Config{Strategy: 4}, "backoff: Strategy 4: unknown"},
		{backoff.Config{Strategy: -1}, "backoff: Strategy -1: unknown"},
	} {
		_, err := backoff.New(tc.c)
		require.Error(t, err, "%+v", tc.c)
		assert.ErrorIs(t, err, backoff.ErrInvalidOptions)
		assert.ErrorIs(t, err, opterr.ErrInvalid, "supervisor.ErrInvalidOptions too")
		assert.Contains(t, err.Error(), tc.want)
	}
	_, err := backoff.New(backoff.Config{Base: time.Second, Cap: time.Second})
	assert.NoError(t, err)
	_, err = backoff.New(backoff.Config{Cap: 24 * time.Hour})
	assert.NoError(t, err)
}

func TestNextAllocatesNothing(t *testing.T) {
	for _, s := range []backoff.Strategy{backoff.Decorrelated, backoff.Full, backoff.Equal, backoff.Exponential} {
		b := mustNew(t, backoff.Config{Strategy: s})
		assert.Zero(t, testing.AllocsPerRun(1000, func() { b.Next() }), "%v", s)
	}
}
