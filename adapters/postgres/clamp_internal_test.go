package postgres

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// A connection's limit is compared on the monotonic clock: after the wall
// clock stepped back an hour, a deadline pgconn sets a second past the
// limit is still clamped to it (kept as UnixNano, the limit read an hour
// later than the deadline, and the deadline passed).
func TestClampIgnoresAWallClockStep(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	c := &trackedConn{Conn: a}
	now := time.Now()
	c.limit(now.Add(time.Minute))
	later := testkit.WallStepped(t, now.Add(2*time.Minute), -time.Hour)
	assert.Equal(t, time.Duration(0), c.clamp(later).Sub(now.Add(time.Minute)), "clamped to the limit")
	c.limit(testkit.WallStepped(t, now.Add(2*time.Minute), -time.Hour))
	assert.Equal(t, time.Duration(0), c.clamp(time.Time{}).Sub(now.Add(time.Minute)), "a later limit does not replace an earlier one")
}
