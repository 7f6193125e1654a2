package sse

import (
	"context"
	"iter"
)

// Event is one event of the stream.
type Event struct {
	// ID is the stream's last event id when the event was dispatched: the
	// event's own id field, else the last id before it, as EventSource's
	// lastEventId; "" while the server has sent none, or since an empty id
	// field reset it.
	ID string
	// Type is the event field: "" for an unnamed event (EventSource calls
	// it "message").
	Type string
	// Data is the data, its lines joined with "\n"; never empty: an
	// event without data is not delivered (EventSource does not dispatch
	// one), though its id still moves the position.
	Data string
}

// Events returns the events of the Client's streams, in the order the
// server sent them, as an iterator. The Client reads ahead of the loop, at
// most Options.Buffer events, without waiting for it: Client.Lag says
// how far behind the loop is. When the loop holds the read back for
// IdleTimeout/3, the stream is paused (ErrBehind, see Watch).
//
// When a stream breaks (the server ended it, the network failed, it stayed
// silent for IdleTimeout) or is paused, that is yielded once as an error,
// "sse: read: ...", after the events read before it; then the next
// stream's events follow. The next request sends the id of the last event
// read as Last-Event-ID, so a server that keeps history resends everything
// after it: none lost, none twice. Events are missed only when the server
// keeps no history. Several breaks in a row are one error.
//
// The loop ends when ctx ends, or when the Client is done (Stopped or
// Failed: Err says which) and what it read was yielded; after Failed it
// ends at once, it never spins. While there is no stream it waits.
// Breaking out of the loop loses nothing: the next loop goes on where it
// left off. Range over Events from one goroutine at a time: two loops
// would each get part of the stream.
func (c *Client) Events(ctx context.Context) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		f, done := c.feed, false
		for ctx.Err() == nil {
			it, ok := f.next()
			switch {
			case ok && it.err != nil:
				if !yield(Event{}, it.err) {
					return
				}
			case ok:
				if !it.silent && !yield(it.ev, nil) {
					return
				}
			case done:
				return
			default:
				select {
				case <-f.wake:
				case <-ctx.Done():
					return
				case <-c.Done():
					done = true
				}
			}
		}
	}
}

// LastEventID returns the id of the last event Events delivered (or
// Options.LastEventID before the first): where the next request resumes.
// A program that persists it and gives it to the next run as
// Options.LastEventID misses nothing the server still holds.
func (c *Client) LastEventID() string { return c.feed.last() }
