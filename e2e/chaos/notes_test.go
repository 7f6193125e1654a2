package chaos

import (
	"context"
	"fmt"
	"sync"
)

// noteCheck checks a Listener's numbered notifications as they are
// delivered (the sequence rule, see doc.go): they come one by one; a gap
// is allowed only when an ErrMissed error (Notifications yields one after
// every reconnect) came between the two numbers around it; a number comes twice only when its sender did not know whether the
// first NOTIFY committed (it sent it again). Safe for concurrent use.
type noteCheck struct {
	name string
	v    *violations

	mu        sync.Mutex
	last      uint64 // the highest number delivered
	missed    bool   // an ErrMissed came after last
	ambiguous map[uint64]bool
	covered   int64 // numbers skipped under an ErrMissed
	dups      int64 // numbers delivered again after an ambiguous send
	received  int64
	events    int64 // ErrMissed errors
	wake      chan struct{}
}

func newNoteCheck(name string, v *violations) *noteCheck {
	return &noteCheck{name: name, v: v, ambiguous: map[uint64]bool{}, wake: make(chan struct{})}
}

func (c *noteCheck) onMissed() {
	c.mu.Lock()
	c.missed = true
	c.events++
	c.mu.Unlock()
}

// markAmbiguous says that NOTIFY n failed: it may have committed or not,
// and it is sent again.
func (c *noteCheck) markAmbiguous(n uint64) {
	c.mu.Lock()
	c.ambiguous[n] = true
	c.mu.Unlock()
}

func (c *noteCheck) onNumber(n uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.received++
	switch {
	case n == c.last+1:
	case n <= c.last:
		if !c.ambiguous[n] {
			c.v.add(ruleSequence, c.name, "notification %d delivered twice, and its NOTIFY was sent once", n)
		}
		c.dups++
		return
	case c.missed:
		c.covered += int64(n - c.last - 1)
	default:
		c.v.add(ruleSequence, c.name, "notifications %d..%d silently skipped: %d came after %d with no ErrMissed between them",
			c.last+1, n-1, n, c.last)
		c.v.lost.Add(int64(n - c.last - 1))
	}
	c.last, c.missed = n, false
	close(c.wake)
	c.wake = make(chan struct{})
}

// waitFor waits until notification n was delivered or ctx ends.
func (c *noteCheck) waitFor(ctx context.Context, n uint64) error {
	for {
		c.mu.Lock()
		last, wake := c.last, c.wake
		c.mu.Unlock()
		if last >= n {
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return fmt.Errorf("notification %d not delivered (last %d): %w", n, last, ctx.Err())
		}
	}
}

// counts returns what was delivered, skipped under ErrMissed errors, and
// delivered again.
func (c *noteCheck) counts() (received, covered, dups int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.received, c.covered, c.dups
}
