package sse

import (
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wallStepped returns at as time.Now would read it after the wall clock
// stepped by d (whole seconds): the wall reading moved, the monotonic one
// not. It edits time.Time's representation (wall: hasMonotonic, 33 bits
// of seconds since 1885 at bit 30, nanoseconds; ext: the monotonic
// reading); the checks below fail if that layout changes. (gorilla's
// liveness test has the same helper.)
func wallStepped(t *testing.T, at time.Time, d time.Duration) time.Time {
	type rep struct {
		wall uint64
		ext  int64
		loc  *time.Location
	}
	require.Equal(t, time.Duration(0), d%time.Second)
	out := at
	r := (*rep)(unsafe.Pointer(&out))
	require.NotZero(t, r.wall&(1<<63), "at has a monotonic reading")
	r.wall = uint64(int64(r.wall) + int64(d/time.Second)<<30)
	require.Equal(t, at.UnixNano()+int64(d), out.UnixNano(), "the wall reading moved by d")
	require.Equal(t, time.Duration(0), out.Sub(at), "the monotonic reading did not move")
	return out
}

// TestFeedClockIgnoresWallSteps: the hold of a full queue and the lag's
// oldest wait count on the monotonic clock. On the wall clock (UnixNano),
// a step forward paused the stream at once and a step back held the read
// an hour longer; the lag said 1h for an event 5ms old.
func TestFeedClockIgnoresWallSteps(t *testing.T) {
	start := time.Now()
	f := newFeed(4, time.Second, "")
	assert.Equal(t, time.Second, f.holdLeft(start))
	assert.Equal(t, 990*time.Millisecond, f.holdLeft(wallStepped(t, start.Add(10*time.Millisecond), time.Hour)), "stepped forward 1h")
	assert.Equal(t, 980*time.Millisecond, f.holdLeft(wallStepped(t, start.Add(20*time.Millisecond), -time.Hour)), "stepped back 1h")

	f.put(item{ev: Event{ID: "1", Data: "x"}, at: start})
	assert.Equal(t, 5*time.Millisecond, f.lag(wallStepped(t, start.Add(5*time.Millisecond), time.Hour)).Oldest)
}
