package statuscode

import (
	"math"
	"math/rand/v2"
	"time"
)

// Spread is the one rule that turns a hint read off the wire (Retry-After,
// a close reason's retry-after=N) into the client's wait: the hint plus
// draw reduced to [0, 1 s). Such a hint names a whole second, and a fleet
// told the same one would come at its first instant. draw is uniform
// (examples/herd passes seeded ones).
func Spread(hint time.Duration, draw uint64) time.Duration {
	if hint <= 0 || hint > math.MaxInt64-time.Second {
		return hint // none, or saturated: MaxHint clamps it
	}
	return hint + time.Duration(draw%uint64(time.Second))
}

func spread(hint time.Duration) time.Duration { return Spread(hint, rand.Uint64()) }
