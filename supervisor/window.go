package supervisor

import "time"

// window counts events over the last minute in a fixed ring of buckets, so
// its memory never grows: 12 buckets of 5 seconds. A count is exact to
// within one bucket (it may include events up to 5s older than a minute).
type window struct {
	origin  time.Time // buckets count from here, on the monotonic clock
	buckets [windowBuckets]uint32
	last    int64 // bucket number of the newest event
}

const (
	windowBuckets = 12
	windowWidth   = 5 * time.Second
)

// bucketOf numbers t's bucket; the monotonic clock keeps a wall-clock
// step from emptying or freezing the window.
func (w *window) bucketOf(t time.Time) int64 { return int64(t.Sub(w.origin) / windowWidth) }

// advance clears the buckets that fell out of the window by now.
func (w *window) advance(now time.Time) {
	b := w.bucketOf(now)
	if b <= w.last {
		return
	}
	for i := w.last + 1; i <= b && i <= w.last+windowBuckets; i++ {
		w.buckets[i%windowBuckets] = 0
	}
	w.last = b
}

// add counts one event at now.
func (w *window) add(now time.Time) {
	w.advance(now)
	w.buckets[w.last%windowBuckets]++
}

// count returns the events in the minute up to now.
func (w *window) count(now time.Time) int {
	w.advance(now)
	n := 0
	for _, c := range w.buckets {
		n += int(c)
	}
	return n
}
