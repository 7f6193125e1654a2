package chaos

import (
	"sync"
	"time"
)

// faultWindow records when faults touched one subject: the faults on its
// own proxy, restarts of its server, restarts of PostgreSQL. The
// round-trip rule asks it whether a connection can have been hurt by a
// fault. Safe for concurrent use.
type faultWindow struct {
	mu      sync.Mutex
	active  int       // faults in force now
	lastEnd time.Time // when the last fault was removed
	total   int       // faults so far
}

// begin is called before a fault is applied.
func (w *faultWindow) begin() {
	w.mu.Lock()
	w.active++
	w.total++
	w.mu.Unlock()
}

// end is called after a fault was removed.
func (w *faultWindow) end() {
	now := time.Now()
	w.mu.Lock()
	w.active--
	w.lastEnd = now
	w.mu.Unlock()
}

// quietSince reports whether no fault is in force now and none was at or
// after t: a connection whose attempt began after t has seen no fault.
func (w *faultWindow) quietSince(t time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.active == 0 && w.lastEnd.Before(t)
}

// state returns whether a fault is in force and when the last one was
// removed.
func (w *faultWindow) state() (active bool, lastEnd time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.active > 0, w.lastEnd
}

// faults returns how many faults touched the subject.
func (w *faultWindow) faults() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}
