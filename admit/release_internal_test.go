package admit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A process that stalled wakes its overdue requests at one instant:
// release lets a window's share through (20 at 200 a second), sends the
// rest to the next window, and takes a late one at once without carrying
// its lateness on. Without it, the storm's busiest 100 ms took 32 at a
// share of 20 (e2e/storm TestWebSocketAdmit at 2,000).
func TestReleaseSpreadsAStall(t *testing.T) {
	p, err := New(Config{Rate: 200})
	require.NoError(t, err)
	t0 := time.Now()
	for i := range 20 {
		require.Zero(t, p.release(t0), "request %d", i)
	}
	assert.Equal(t, window, p.release(t0), "the 21st waits for the next window")
	assert.Equal(t, 40*time.Millisecond, p.release(t0.Add(60*time.Millisecond)))
	assert.Zero(t, p.release(t0.Add(window)), "the next window")
	assert.Zero(t, p.release(t0.Add(time.Hour)), "late: at once")
}
