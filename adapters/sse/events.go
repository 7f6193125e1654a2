package sse

import (
	"context"
	"iter"
)

// Event is one event of the stream.
type Event struct {
	// ID is the stream's last event id when the event was dispatched: the
	// event's own id field, else the last id before it, as EventSource's
	// lastEventId. An empty id field does not clear it. "" while the
	// server has sent no id.
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
// server sent them, as an iterator. The Client reads ahead of the loop,
// at most Options.Buffer events; while the buffer is full it stops
// reading and the server holds the rest.
//
// When a stream breaks (the server ended it, the network failed, it stayed
// silent for IdleTimeout), the break is yielded once as an error, "sse:
// read: ...", then the next stream's events follow. The next request
// sends the ID of the last event this loop yielded as Last-Event-ID, so a
// server that keeps history resends everything after it: the events the
// Client had read ahead but not yet yielded are dropped at the break and
// come again, after the error, in order, none twice. Events are missed
// only when the server keeps no history. Several breaks before the loop
// takes the error are one error.
//
// The loop ends when ctx ends, or when the Client is done (Stopped or
// Failed: Err says which); after Failed it ends at once, it never spins.
// While there is no stream it waits. Breaking out of the loop loses
// nothing: the next loop goes on where it left off. Range over Events from
// one goroutine at a time: two loops would each get part of the stream.
func (c *Client) Events(ctx context.Context) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		f := c.feed
		for ctx.Err() == nil {
			it := f.unstash()
			if it == nil {
				select {
				case x := <-f.items:
					it = &x
				case <-f.wake:
				case <-ctx.Done():
					return
				case <-c.Done():
					if err := f.owed(); err != nil {
						yield(Event{}, err)
					}
					return
				}
			}
			ev, ok, err := f.take(it)
			if err != nil && !yield(Event{}, err) {
				return
			}
			if ok && !yield(ev, nil) {
				return
			}
		}
	}
}

// LastEventID returns the id of the last event Events delivered (or
// Options.LastEventID before the first): where the next request resumes.
// A program that persists it and gives it to the next run as
// Options.LastEventID misses nothing the server still holds.
func (c *Client) LastEventID() string { return c.feed.last() }
