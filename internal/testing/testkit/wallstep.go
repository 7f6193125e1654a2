package testkit

import (
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// WallStepped returns at as time.Now would read it after the wall clock
// stepped by d (whole seconds): the wall reading moved, the monotonic one
// not, as NTP or a resumed VM leave it. It edits time.Time's
// representation (wall: hasMonotonic, 33 bits of seconds since 1885 at bit
// 30, nanoseconds; ext: the monotonic reading); the checks fail if that
// layout changes.
func WallStepped(t testing.TB, at time.Time, d time.Duration) time.Time {
	t.Helper()
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
