package postgres_test

import (
	"sync"
	"testing"
	"time"

	"github.com/redial-go/redial/health"
)

// timeline is every Status one subscription saw, read as they come, so
// that when each transition happened (Status.Since) is known for every
// subject at once.
type timeline struct {
	mu      sync.Mutex
	seen    []health.Status
	changed chan struct{} // capacity 1: a Status was added
}

// record subscribes to r until the test ends.
func record(t *testing.T, r runner) *timeline {
	ch, unsub := r.Subscribe()
	tl := &timeline{changed: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for st := range ch {
			tl.mu.Lock()
			tl.seen = append(tl.seen, st)
			tl.mu.Unlock()
			select {
			case tl.changed <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() { unsub(); <-done })
	return tl
}

// wait returns the first Status that began at or after from and satisfies
// ok, failing t if none does within d.
func (tl *timeline) wait(t *testing.T, d time.Duration, from time.Time, ok func(health.Status) bool) health.Status {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		tl.mu.Lock()
		var last health.Status
		for _, st := range tl.seen {
			if !st.Since.Before(from) && ok(st) {
				tl.mu.Unlock()
				return st
			}
			last = st
		}
		tl.mu.Unlock()
		select {
		case <-tl.changed:
		case <-timer.C:
			t.Fatalf("no such status within %v; last: %s %v", d, last.State, last.Err)
		}
	}
}
