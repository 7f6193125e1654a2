package gorilla

import (
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wallStepped returns t as time.Now would read it after the wall clock
// stepped by d (whole seconds): the wall reading moved, the monotonic one
// not. It edits time.Time's representation (wall: hasMonotonic, 33 bits
// of seconds since 1885 at bit 30, nanoseconds; ext: the monotonic
// reading); the checks below fail if that layout changes.
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

// TestLivenessSurvivesAWallClockStep: a pong or message heard after a
// ping counts as heard after it although the wall clock stepped back in
// between (NTP, a resumed VM); a step forward makes nothing heard that
// was not. On the wall clock (UnixNano) the live peer looked silent.
func TestLivenessSurvivesAWallClockStep(t *testing.T) {
	start := time.Now()
	lv := &liveness{origin: start}
	lv.mark(start)
	sent := start.Add(time.Second)
	lv.mark(wallStepped(t, sent.Add(time.Millisecond), -time.Hour))
	assert.True(t, lv.heardSince(sent), "heard 1ms after the ping, the wall clock stepped back 1h")

	lv.mark(start)
	assert.False(t, lv.heardSince(wallStepped(t, sent, -time.Hour)), "nothing heard since a ping sent after a step back")
	later := wallStepped(t, sent.Add(time.Millisecond), time.Hour)
	assert.False(t, lv.heardSince(later), "nothing heard since, the wall clock stepped forward")
}
