package sse

import (
	"testing"
	"time"

	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/stretchr/testify/assert"
)

// TestFeedClockIgnoresWallSteps: the hold of a full queue and the lag's
// oldest wait count on the monotonic clock. On the wall clock (UnixNano),
// a step forward paused the stream at once and a step back held the read
// an hour longer; the lag said 1h for an event 5ms old.
func TestFeedClockIgnoresWallSteps(t *testing.T) {
	start := time.Now()
	f := newFeed(4, time.Second, "")
	assert.Equal(t, time.Second, f.holdLeft(start))
	assert.Equal(t, 990*time.Millisecond, f.holdLeft(testkit.WallStepped(t, start.Add(10*time.Millisecond), time.Hour)), "stepped forward 1h")
	assert.Equal(t, 980*time.Millisecond, f.holdLeft(testkit.WallStepped(t, start.Add(20*time.Millisecond), -time.Hour)), "stepped back 1h")

	f.put(item{ev: Event{ID: "1", Data: "x"}, at: start})
	assert.Equal(t, 5*time.Millisecond, f.lag(testkit.WallStepped(t, start.Add(5*time.Millisecond), time.Hour)).Oldest)
}
