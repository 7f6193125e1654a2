package admit_test

import (
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/admit"
	"github.com/redial-go/redial/supervisor"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestBadConfig(t *testing.T) {
	for _, tc := range []struct {
		c    admit.Config
		want string
	}{
		{admit.Config{}, "admit: Rate 0: must be in (0, 100000]"},
		{admit.Config{Rate: math.NaN()}, "admit: Rate NaN: must be in (0, 100000]"},
		{admit.Config{Rate: 2e5}, "admit: Rate 200000: must be in (0, 100000]"},
		{admit.Config{Rate: 1, Burst: -1}, "admit: Burst -1: must be in [0, 100000]"},
		{admit.Config{Rate: 1, Hold: -time.Second}, "admit: Hold -1s: negative"},
		{admit.Config{Rate: 1, Horizon: 25 * time.Hour}, "admit: Horizon 25h0m0s: longer than 24h0m0s"},
	} {
		p, err := admit.New(tc.c)
		assert.Nil(t, p)
		assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
		assert.EqualError(t, err, tc.want)
	}
}

// arrival is one client's first answer and its return.
type arrival struct {
	wait time.Duration
	ok   bool
}

// 400 clients arrive at one instant, from 8 goroutines, at a server that
// takes 100 a second: the first Hold's worth are held for their slots,
// every slot a distinct multiple of 10 ms; each refused one is promised
// a slot of its own, no second of hints holding more than the rate.
// Back when its hint and a draw from its second say, every refused client
// is admitted, and no 100 ms window takes more than the pace's 10 (+1 for
// the window's edge).
func TestSlotsUnderConcurrency(t *testing.T) {
	const n, rate = 400, 100
	p, err := admit.New(admit.Config{Rate: rate})
	require.NoError(t, err)
	var mu sync.Mutex
	var got []arrival
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range n / 8 {
				wait, ok := p.Plan(t0)
				mu.Lock()
				got = append(got, arrival{wait, ok})
				mu.Unlock()
			}
			_ = g
		})
	}
	wg.Wait()
	var held []time.Duration
	perSecond := map[time.Duration]int{}
	var hints []time.Duration
	for _, a := range got {
		if a.ok {
			held = append(held, a.wait)
			continue
		}
		perSecond[a.wait]++
		hints = append(hints, a.wait)
	}
	slices.Sort(held)
	require.Len(t, held, 1+int(admit.DefaultHold/(10*time.Millisecond)), "Hold's worth of slots, and the one at once")
	for i, w := range held {
		assert.Equal(t, time.Duration(i)*10*time.Millisecond, w, "slot %d", i)
	}
	for sec, k := range perSecond {
		assert.LessOrEqual(t, k, rate, "hint %v: never more than a second's worth", sec)
		assert.Zero(t, sec%time.Second, "whole seconds")
		assert.GreaterOrEqual(t, sec, time.Second)
	}
	// They return, each at its hint plus a draw in [0, 1 s), in time order.
	var back []time.Time
	for i, h := range hints {
		back = append(back, t0.Add(h+time.Duration(i*7919%1000)*time.Millisecond))
	}
	slices.SortFunc(back, func(a, b time.Time) int { return a.Compare(b) })
	admitted := map[int64]int{}
	for _, at := range held {
		admitted[int64(at/(100*time.Millisecond))]++
	}
	var last time.Duration
	for _, at := range back {
		wait, ok := p.Plan(at)
		require.True(t, ok, "a client back at %v, its slot's second, is admitted", at.Sub(t0))
		in := at.Add(wait).Sub(t0)
		admitted[int64(in/(100*time.Millisecond))]++
		last = max(last, in)
	}
	for w, k := range admitted {
		assert.LessOrEqual(t, k, 11, "window %d", w)
	}
	assert.LessOrEqual(t, last, n*time.Second/rate, "the last one is in by N/rate")
}

// With a Burst the first ones are taken at once; then the pace.
func TestBurst(t *testing.T) {
	p, err := admit.New(admit.Config{Rate: 10, Burst: 5})
	require.NoError(t, err)
	for i := range 5 {
		wait, ok := p.Plan(t0)
		require.True(t, ok)
		assert.Zero(t, wait, "burst %d", i)
	}
	wait, ok := p.Plan(t0)
	assert.True(t, ok)
	assert.Equal(t, 100*time.Millisecond, wait)
	wait, ok = p.Plan(t0.Add(time.Hour))
	assert.True(t, ok)
	assert.Zero(t, wait, "an idle hour: the burst is back")
}

// A plan full up to Horizon promises no slot: it tells the client to come
// back at the horizon and books nothing.
func TestNoSlotPastTheHorizon(t *testing.T) {
	p, err := admit.New(admit.Config{Rate: 1, Hold: time.Second, Horizon: 10 * time.Second})
	require.NoError(t, err)
	var hints []time.Duration
	for range 14 {
		wait, ok := p.Plan(t0)
		if !ok {
			hints = append(hints, wait)
		}
	}
	assert.Equal(t, []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10}, seconds(hints))
	wait, ok := p.Plan(t0.Add(10 * time.Second))
	assert.True(t, ok, "the horizon's client is not refused for slots never promised")
	assert.LessOrEqual(t, wait, time.Second)
}

// A promised slot whose client never came is given up a minute later:
// it neither blocks the plan nor lets a crowd in at once.
func TestStaleSlotsAreGivenUp(t *testing.T) {
	p, err := admit.New(admit.Config{Rate: 1, Hold: time.Second})
	require.NoError(t, err)
	for range 10 {
		p.Plan(t0)
	}
	later := t0.Add(2 * time.Minute)
	wait, ok := p.Plan(later)
	assert.True(t, ok)
	assert.Zero(t, wait)
	wait, ok = p.Plan(later)
	assert.True(t, ok)
	assert.Equal(t, time.Second, wait, "the pace, not the stale promises")
}

func seconds(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		if d%time.Second != 0 {
			panic(errors.New("not whole seconds"))
		}
		out[i] = d / time.Second
	}
	return out
}
