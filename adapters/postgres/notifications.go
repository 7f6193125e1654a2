package postgres

import (
	"context"
	"iter"
)

// Notifications yields the notifications of the Listener's channels, in
// the order the server sent them, and, once after every reconnect, an
// error wrapping ErrMissed that says why the connection was lost: it comes
// after the channels are LISTENed again and before the new connection's
// notifications, so the program re-reads the state they describe then
// (every change made after it is notified). A yielded error never ends the
// loop; the Notification that goes with it is zero.
//
// The loop ends when ctx ends, or when the Listener is done (Stopped or
// Failed: Err says which) once the notifications it had already received
// are delivered. While there is no connection it waits; it never spins.
// Breaking out of the loop loses nothing: the next loop goes on where it
// left off.
//
// One consumer at a time: two loops running at once would each get part
// of the stream. While the program is slow to take notifications, the
// Listener stops reading once Buffer of them wait, and the server queues
// the rest.
func (l *Listener) Notifications(ctx context.Context) iter.Seq2[Notification, error] {
	return func(yield func(Notification, error) bool) {
		for ctx.Err() == nil {
			select {
			case it := <-l.items:
				if !yield(it.n, it.err) {
					return
				}
			case <-ctx.Done():
				return
			case <-l.Done():
				l.drain(ctx, yield) // Watch has returned: nothing more comes
				return
			}
		}
	}
}

// drain yields what is left in the buffer, until ctx ends or the loop
// breaks.
func (l *Listener) drain(ctx context.Context, yield func(Notification, error) bool) {
	for ctx.Err() == nil {
		select {
		case it := <-l.items:
			if !yield(it.n, it.err) {
				return
			}
		default:
			return
		}
	}
}
