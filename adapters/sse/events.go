package sse

import (
	"context"
	"iter"
)

// Event is one event of the stream.
type Event struct {
	// ID is the stream's last event id at dispatch, as EventSource's
	// lastEventId: the event's id field, else the last one before it. An
	// id net/http cannot send back as Last-Event-ID is not adopted.
	ID string
	// Type is the event field; "" for an unnamed event ("message").
	Type string
	// Data is the data, its lines joined with "\n"; never empty: an event
	// without data is not delivered, though its id moves the position.
	Data string
}

// Events returns the events of the Client's streams, in the server's
// order. A broken or paused stream is yielded once as an error, after
// the events read before it; the next stream resumes after the last event
// read, so a server that keeps history loses none and doubles none (a
// replacement, Replace or MaxConnectionAge, says supervisor.ErrSwitched). The
// loop ends when ctx ends, or when the Client is done and what it read was
// yielded; it never spins. Breaking out loses nothing: the next loop goes
// on. Range from one goroutine at a time: two would split the stream.
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
// Options.LastEventID before the first): a program that persists it and
// passes it to its next run misses nothing the server still holds.
func (c *Client) LastEventID() string { return c.feed.last() }
