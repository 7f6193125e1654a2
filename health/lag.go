package health

import "time"

// Lag is how far a program is behind a feed it reads (sse Events): what the
// source received that the program has not taken yet.
type Lag struct {
	Waiting int           // items received and not yet taken by the program
	Oldest  time.Duration // how long the oldest of them has waited; 0 when none
}

// LagSource is a Source that feeds the program, such as an sse Client: Lag
// says how far behind the program is. Lag must be safe for concurrent use
// and must not block. (Lag is not in Status, which every supervisor holds:
// only feeds pay for it.)
type LagSource interface {
	Source
	Lag() Lag
}
