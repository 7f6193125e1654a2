package statuscode_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/statuscode"
)

func TestSpread(t *testing.T) {
	assert.Equal(t, 3*time.Second, statuscode.Spread(3*time.Second, 0))
	assert.Equal(t, 4*time.Second-1, statuscode.Spread(3*time.Second, uint64(time.Second)-1))
	assert.Equal(t, 3*time.Second+5, statuscode.Spread(3*time.Second, uint64(time.Second)+5))
	assert.Zero(t, statuscode.Spread(0, 12345), "no hint stays none")
	assert.Equal(t, time.Duration(math.MaxInt64), statuscode.Spread(math.MaxInt64, 12345), "saturated, not wrapped")
}

// A fleet told "Retry-After: 1" at one instant comes back spread over the
// second after it, not at its first instant: without the spread every
// hint below is exactly 1 s and one 100 ms window holds them all.
func TestOneHintToAFleetIsSpreadOverItsSecond(t *testing.T) {
	windows := map[time.Duration]int{}
	const n = 2000
	for range n {
		d, _ := backoff.RetryAfterHint(statuscode.HTTP(errors.New("503"), 503, time.Second))
		assert.GreaterOrEqual(t, d, time.Second)
		assert.Less(t, d, 2*time.Second)
		windows[d.Truncate(100*time.Millisecond)]++
	}
	assert.Len(t, windows, 10)
	for w, k := range windows {
		assert.Less(t, k, n/10*3/2, "window %v: the fleet is spread evenly", w)
	}
}
