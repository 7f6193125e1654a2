package health

import "time"

// Lag is how far a program is behind a feed it reads (sse Events): what the
// source received that the program has not taken yet.
type Lag struct {
	Waiting int           // items received and not yet taken by the program
	Oldest  time.Duration // how long the oldest of them has waited; 0 when none
}

// LagSource is a Source that feeds the program, such as an sse Client
// (not in Status: only feeds pay for it). Lag must be safe for concurrent
// use and must not block.
type LagSource interface {
	Source
	Lag() Lag
}
