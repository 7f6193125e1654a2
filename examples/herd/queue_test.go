package main

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The calendar pops events in time order (then client order), whatever
// the mix of pushes: into the bucket being drained, far ahead into the
// overflow, after long gaps.
func TestCalendarPopsInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := newCalendar()
	var now time.Duration
	var want, got []event
	for i := range 2000 {
		e := event{at: time.Duration(rng.Int64N(int64(time.Second))), client: i}
		c.push(e)
		want = append(want, e)
	}
	for c.len() > 0 {
		e := c.pop()
		require.GreaterOrEqual(t, e.at, now, "time went back")
		now = e.at
		got = append(got, e)
		if len(got) < 20000 {
			var d time.Duration
			switch rng.IntN(4) {
			case 0:
				d = 0 // the bucket being drained
			case 1:
				d = time.Duration(rng.Int64N(int64(time.Millisecond)))
			case 2:
				d = time.Duration(rng.Int64N(int64(time.Minute)))
			case 3:
				d = 20*time.Minute + time.Duration(rng.Int64N(int64(3*time.Hour))) // beyond the ring
			}
			n := event{at: now + d, client: len(want)}
			c.push(n)
			want = append(want, n)
		}
	}
	slices.SortFunc(want, cmpEvent)
	assert.Equal(t, want, got)
}
