package gorilla

import (
	"testing"
	"time"

	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/stretchr/testify/assert"
)

// TestLivenessSurvivesAWallClockStep: a pong or message heard after a
// ping counts as heard after it although the wall clock stepped back in
// between (NTP, a resumed VM); a step forward makes nothing heard that
// was not. On the wall clock (UnixNano) the live peer looked silent.
func TestLivenessSurvivesAWallClockStep(t *testing.T) {
	start := time.Now()
	lv := &liveness{origin: start}
	lv.mark(start)
	sent := start.Add(time.Second)
	lv.mark(testkit.WallStepped(t, sent.Add(time.Millisecond), -time.Hour))
	assert.True(t, lv.heardSince(sent), "heard 1ms after the ping, the wall clock stepped back 1h")

	lv.mark(start)
	assert.False(t, lv.heardSince(testkit.WallStepped(t, sent, -time.Hour)), "nothing heard since a ping sent after a step back")
	later := testkit.WallStepped(t, sent.Add(time.Millisecond), time.Hour)
	assert.False(t, lv.heardSince(later), "nothing heard since, the wall clock stepped forward")
}
