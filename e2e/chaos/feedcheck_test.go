package chaos

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// feedCheck checks a WebSocket subject's feed as its reader receives it
// (the sequence rule, see doc.go): within a connection the numbers come
// one by one; a gap is allowed only at the start of a connection the
// server declared "fresh" (it did not replay); a number comes twice only
// inside a replay. Safe for concurrent use.
type feedCheck struct {
	name string
	v    *violations
	want atomic.Uint64 // last+1: what OnConnect asks the server for

	mu       sync.Mutex
	last     uint64        // the highest number accepted; 0 before the first
	conn     uint64        // the connection whose start came last
	start    uint64        // the first number of that connection
	covered  int64         // numbers skipped across a fresh reconnect
	dups     int64         // numbers received again in a replay
	received int64         // every number received
	wake     chan struct{} // closed when last grows
}

func newFeedCheck(name string, v *violations) *feedCheck {
	f := &feedCheck{name: name, v: v, wake: make(chan struct{})}
	f.want.Store(1)
	return f
}

// onMessage checks one message of the feed protocol.
func (f *feedCheck) onMessage(msg []byte) {
	var c, n uint64
	var how string
	if k, _ := fmt.Sscanf(string(msg), "start %d %d %s", &c, &n, &how); k == 3 {
		f.onStart(c, n, how == "replay")
		return
	}
	if k, _ := fmt.Sscanf(string(msg), "m %d %d", &c, &n); k == 2 {
		f.onNumber(c, n)
		return
	}
	f.v.add(ruleSequence, f.name, "unreadable feed message %q", msg)
}

func (f *feedCheck) onStart(conn, first uint64, replay bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if conn <= f.conn {
		f.v.add(ruleSequence, f.name, "connection #%d started after connection #%d", conn, f.conn)
	}
	f.conn, f.start = conn, first
	switch {
	case first <= f.last+1: // a replay from there, or nothing missed
	case replay:
		f.v.add(ruleSequence, f.name, "the server replays connection #%d from %d, but %d..%d were never received", conn, first, f.last+1, first-1)
		f.v.lost.Add(int64(first - f.last - 1))
	default: // the server says it did not replay: the gap is covered by the reconnect
		f.covered += int64(first - f.last - 1)
		f.accept(first - 1)
	}
}

func (f *feedCheck) onNumber(conn, n uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.received++
	switch {
	case conn != f.conn:
		f.v.add(ruleSequence, f.name, "number %d of connection #%d arrived while connection #%d is current", n, conn, f.conn)
	case n == f.last+1:
		f.accept(n)
	case n <= f.last && n >= f.start:
		f.dups++ // replayed: the client asked from before it
	case n <= f.last:
		f.v.add(ruleSequence, f.name, "number %d received twice (connection #%d started at %d)", n, conn, f.start)
	default:
		f.v.add(ruleSequence, f.name, "numbers %d..%d silently skipped: %d came after %d within connection #%d, no reconnect between them",
			f.last+1, n-1, n, f.last, conn)
		f.v.lost.Add(int64(n - f.last - 1))
		f.accept(n)
	}
}

// accept makes n the last number; f.mu is held.
func (f *feedCheck) accept(n uint64) {
	f.last = n
	f.want.Store(n + 1)
	close(f.wake)
	f.wake = make(chan struct{})
}

// waitFor waits until number n was accepted or ctx ends.
func (f *feedCheck) waitFor(ctx context.Context, n uint64) error {
	for {
		f.mu.Lock()
		last, wake := f.last, f.wake
		f.mu.Unlock()
		if last >= n {
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return fmt.Errorf("number %d not received (last %d): %w", n, last, ctx.Err())
		}
	}
}

// counts returns what was received, skipped across fresh reconnects and
// received again in replays.
func (f *feedCheck) counts() (received, covered, dups int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.received, f.covered, f.dups
}
