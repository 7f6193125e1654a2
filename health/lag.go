package health

import "time"

// Lag is how far a program is behind a feed it reads (sse Events): what the
// source received that the program has not taken yet. A source that reads
// no feed for the program reports none.
type Lag struct {
	Waiting int           // items received and not yet taken by the program
	Oldest  time.Duration // how long the oldest of them has waited; 0 when none
}
