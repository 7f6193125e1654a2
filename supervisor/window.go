package supervisor

import "time"

// window counts events over the last minute in a fixed ring of buckets, so
// its memory never grows: 12 buckets of 5 seconds. A count is exact to
// within one bucket (it may include events up to 5s older than a minute).
type window struct {
	buckets [windowBuckets]uint32
	last    int64 // bucket number (unix time / bucket width) of the newest event
}

const (
	windowBuckets = 12
	windowWidth   = 5 * time.Second
)

func bucketOf(t time.Time) int64 { return t.UnixNano() / int64(windowWidth) }

// advance clears the buckets that fell out of the window by now.
func (w *window) advance(now time.Time) {
	b := bucketOf(now)
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
