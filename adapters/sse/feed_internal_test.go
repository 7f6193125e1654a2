package sse

import (
	"errors"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
)

func event(i int) item {
	return item{ev: Event{ID: strconv.Itoa(i), Data: "x"}, at: time.Now()}
}

// TestFeedHoldsTheReadForHoldAtMost: a full queue holds the read while the
// program makes room within hold, counted from when it was first full;
// after hold the read is told to pause. Once the program took the queue
// down to half, a new hold begins.
func TestFeedHoldsTheReadForHoldAtMost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFeed(4, time.Second, "")
		done := make(chan struct{})
		for i := range 4 {
			require.True(t, f.push(done, event(i)))
		}
		go func() {
			time.Sleep(400 * time.Millisecond)
			f.next()
		}()
		start := time.Now()
		require.True(t, f.push(done, event(4)), "room within the hold")
		assert.Equal(t, 400*time.Millisecond, time.Since(start))
		assert.False(t, f.push(done, event(5)), "no room for the rest of the hold")
		assert.Equal(t, time.Second, time.Since(start), "the hold counts from when the queue was first full")
		assert.Equal(t, "4", f.position(), "the position is the last event queued")

		f.next()
		f.next() // down to half: the hold is over
		require.True(t, f.push(done, event(5)))
		require.True(t, f.push(done, event(6)))
		start = time.Now()
		assert.False(t, f.push(done, event(7)))
		assert.Equal(t, time.Second, time.Since(start), "a new hold")

		close(done)
		assert.False(t, f.push(done, event(7)), "the stream ended")
	})
}

// TestFeedBreaksAndLag: breaks come after what was read before them; a
// break right after another is one, a pause gives way to a break that
// says more; the lag counts what the loop will yield and the oldest's age.
func TestFeedBreaksAndLag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFeed(8, time.Second, "0")
		done := make(chan struct{})
		lost, refused := errors.New("lost"), errors.New("refused")
		require.True(t, f.push(done, event(1)))
		require.True(t, f.push(done, item{ev: Event{ID: "2"}, silent: true, at: time.Now()}))
		time.Sleep(time.Second)
		f.pushBreak(lost)
		f.pushBreak(refused)
		require.True(t, f.push(done, event(3)))
		f.pushBreak(ErrBehind)
		f.pushBreak(refused)
		time.Sleep(time.Second)
		assert.Equal(t, health.Lag{Waiting: 4, Oldest: 2 * time.Second}, f.lag(time.Now()))

		var got []string
		for it, ok := f.next(); ok; it, ok = f.next() {
			switch {
			case it.err != nil:
				got = append(got, it.err.Error())
			case it.silent:
				got = append(got, "silent "+it.ev.ID)
			default:
				got = append(got, it.ev.ID)
			}
		}
		assert.Equal(t, []string{"1", "silent 2", "lost", "3", "refused"}, got)
		assert.Equal(t, health.Lag{}, f.lag(time.Now()))
		assert.Equal(t, "3", f.last())
	})
}
