package sse

import (
	"context"
	"sync"

	gosse "github.com/tmaxmax/go-sse"
)

// feed is the hand-over between the read (Watch, on the supervisor's
// goroutine) and the program's Events loop: a bounded buffer, the id of
// the last event delivered, which the next request resumes from, and the
// break owed to the program.
//
// Every stream delivers under a generation. When a stream ends (fence),
// the generation moves on before the next request reads the position, so
// events of the old stream still in the buffer are never delivered: the
// next stream, resumed from the last delivered id, brings them again. The
// position therefore always is the id of an event the program received
// (or of a block without data the loop passed after it), never of one it
// did not, and nothing is delivered twice.
type feed struct {
	items chan item
	wake  chan struct{} // capacity 1: a break is owed

	mu     sync.Mutex
	gen    uint64 // the live stream's generation; items of another are stale
	lastID string // the id of the last event delivered; where the next request resumes
	lost   error  // owed to the program: the first break since it last heard of one
	stash  *item  // taken from items, not yet yielded: the owed break went first
}

// item is one event a stream read, with the stream's generation.
type item struct {
	gen    uint64
	ev     Event
	silent bool  // no data: not delivered, but its id is the position once taken
	read   int64 // UnixNano of the body read that brought it: its age, once lag is measured
}

// newFeed returns a feed of buffer events that resumes from lastID.
func newFeed(buffer int, lastID string) *feed {
	return &feed{items: make(chan item, buffer), wake: make(chan struct{}, 1), lastID: lastID}
}

// position returns where the next stream resumes and the generation it
// delivers under.
func (f *feed) position() (lastID string, gen uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastID, f.gen
}

// fence ends s's generation, so that what s read and the program has not
// taken is dropped, and owes lost, a failed read, to the program unless a
// break is owed already. It is called when Watch ends and when s is
// closed; the second call changes nothing.
func (f *feed) fence(s *Stream, lost error) {
	f.mu.Lock()
	if f.gen == s.gen {
		f.gen++
	}
	owe := lost != nil && f.lost == nil
	if owe {
		f.lost = lost
	}
	f.mu.Unlock()
	if owe {
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
	for { // free the buffer of what is stale now
		select {
		case <-f.items:
		default:
			return
		}
	}
}

// deliver puts e, read from s, in the buffer, waiting while it is full
// unless ctx ends first. The idle timer does not run meanwhile: a slow
// program is not a silent server. An event without data (a block of only
// `id:`, `event:` or `retry:` fields, which go-sse dispatches) is not
// delivered, as EventSource does not dispatch one, but it goes through
// the buffer all the same: its id becomes the position when the program
// has taken everything before it.
func (f *feed) deliver(ctx context.Context, s *Stream, e gosse.Event) {
	s.read++
	if e.LastEventID != "" {
		s.lastSeen = e.LastEventID
	}
	it := item{gen: s.gen, ev: Event{ID: s.lastSeen, Type: e.Type, Data: e.Data}, silent: e.Data == "", read: s.readAt}
	s.idle.Stop()
	defer s.idle.Reset(s.idleTimeout)
	select {
	case f.items <- it:
	case <-ctx.Done():
	}
}

// take decides what the Events loop yields after it took it (nil when it
// woke for an owed break): the owed break first, it kept for the next
// round; else it, when it belongs to the live stream and has data. An
// item of the live stream makes its id the position.
func (f *feed) take(it *item) (ev Event, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lost != nil {
		err, f.lost = f.lost, nil
		if it != nil {
			f.stash = it
		}
		return Event{}, false, err
	}
	if it == nil || it.gen != f.gen {
		return Event{}, false, nil
	}
	if it.ev.ID != "" {
		f.lastID = it.ev.ID
	}
	return it.ev, !it.silent, nil
}

// unstash returns the item a loop took but did not yield.
func (f *feed) unstash() *item {
	f.mu.Lock()
	defer f.mu.Unlock()
	it := f.stash
	f.stash = nil
	return it
}

// owed returns the owed break, if any, and clears it.
func (f *feed) owed() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.lost
	f.lost = nil
	return err
}

// last returns the id of the last event delivered.
func (f *feed) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastID
}
