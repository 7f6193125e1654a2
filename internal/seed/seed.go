// Package seed seeds the library's random generators without crypto.
package seed

import (
	"math/rand/v2"
	"time"
)

// Pair seeds a rand.PCG: the runtime's source, and the clock for snapshots.
func Pair() (uint64, uint64) {
	return rand.Uint64(), rand.Uint64() ^ uint64(time.Now().UnixNano())
}
