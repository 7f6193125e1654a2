package main

import (
	"math"
	"slices"
	"time"
)

// calendar is the simulation's event queue: events in buckets of one
// millisecond on a ring that spans more than any wait (Cap, gRPC's 144 s,
// MaxHint's 5 minutes), a bucket sorted when its turn comes; an event
// further ahead waits in an overflow list. Pushing and popping cost O(1)
// amortized, so that a million clients run in seconds, where a binary heap
// of interface values took a minute.
type calendar struct {
	ring     [][]event
	cur      int64 // the bucket being drained, or next to be
	draining bool  // ring[cur] is sorted and popped from pos on
	pos      int
	overflow []event // events ringSize buckets or more ahead
	minOver  int64   // the earliest overflow event's bucket
	n        int
}

const (
	bucketSize = int64(time.Millisecond)
	ringSize   = 1 << 20 // buckets: 17.5 minutes
)

func newCalendar() *calendar {
	return &calendar{ring: make([][]event, ringSize), minOver: math.MaxInt64}
}

func (c *calendar) len() int { return c.n }

// push adds e, which is never before the last event popped.
func (c *calendar) push(e event) {
	c.n++
	b := int64(e.at) / bucketSize
	if b-c.cur >= ringSize {
		c.overflow = append(c.overflow, e)
		c.minOver = min(c.minOver, b)
		return
	}
	bk := c.ring[b%ringSize]
	if b == c.cur && c.draining { // into the bucket being drained: keep it sorted
		i, _ := slices.BinarySearchFunc(bk[c.pos:], e, cmpEvent)
		c.ring[b%ringSize] = slices.Insert(bk, c.pos+i, e)
		return
	}
	c.ring[b%ringSize] = append(bk, e)
}

// pop removes and returns the earliest event; the queue must not be empty.
func (c *calendar) pop() event {
	for {
		bk := c.ring[c.cur%ringSize]
		if c.draining {
			if c.pos < len(bk) {
				c.pos++
				c.n--
				return bk[c.pos-1]
			}
			c.ring[c.cur%ringSize] = bk[:0] // the array is reused
			c.draining = false
			c.cur++
			continue
		}
		if c.n == len(c.overflow) { // the ring is empty: skip to the overflow
			c.cur = max(c.cur, c.minOver)
		}
		if c.minOver-c.cur < ringSize {
			c.refill()
			bk = c.ring[c.cur%ringSize]
		}
		if len(bk) == 0 {
			c.cur++
			continue
		}
		slices.SortFunc(bk, cmpEvent)
		c.draining, c.pos = true, 0
	}
}

// refill moves the overflow events that are now within the ring into it.
func (c *calendar) refill() {
	kept := c.overflow[:0]
	c.minOver = math.MaxInt64
	for _, e := range c.overflow {
		if b := int64(e.at) / bucketSize; b-c.cur < ringSize {
			c.ring[b%ringSize] = append(c.ring[b%ringSize], e)
		} else {
			kept = append(kept, e)
			c.minOver = min(c.minOver, b)
		}
	}
	c.overflow = kept
}

// cmpEvent orders events by time, then by client, so that a run is
// reproducible.
func cmpEvent(a, b event) int {
	switch {
	case a.at < b.at:
		return -1
	case a.at > b.at:
		return 1
	}
	return a.client - b.client
}
