package httpcore

import (
	"fmt"
	"sync"

	"github.com/redial-go/redial/backoff"
)

// PoisonBreaks is how many connections in a row an item over ReadLimit
// may break at the same place before the supervisor gives up: a server
// that resends it on every reconnect (a snapshot, an event in its
// history) would otherwise break every connection forever.
const PoisonBreaks = 3

// poison counts the breaks in a row at one place. A place is what the
// adapter says it is: the items a connection read before it, or the last
// event id.
type poison struct {
	mu sync.Mutex
	at string
	n  int
}

// OverLimit returns the error for a read that failed with an item over
// ReadLimit at place at, made safe: after PoisonBreaks such breaks in a
// row at the same place it is Permanent and says why.
func (c *Core) OverLimit(err error, at string) error {
	c.poison.mu.Lock()
	if c.poison.n > 0 && c.poison.at == at {
		c.poison.n++
	} else {
		c.poison.at, c.poison.n = at, 1
	}
	n := c.poison.n
	c.poison.mu.Unlock()
	err = c.Safe(err)
	if n < PoisonBreaks {
		return err
	}
	return backoff.Permanent(fmt.Errorf("%w: %s over ReadLimit (%d bytes) broke %d connections in a row at the same place: giving up", err, c.Item, c.ReadLimit, n))
}

// OtherBreak records a break for another reason: the place is free again.
func (c *Core) OtherBreak() {
	c.poison.mu.Lock()
	c.poison.n = 0
	c.poison.mu.Unlock()
}
