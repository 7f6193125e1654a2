package postgres

import (
	"context"
	"iter"
)

// Notifications yields the notifications, in the server's order, and once
// after every reconnect an error wrapping ErrMissed that says why the
// connection was lost: it comes once the channels are LISTENed again, so
// the program re-reads the state they describe then. An error never ends
// the loop. The loop ends when ctx ends, or when the Listener is done
// (Err says why) and what it received is delivered; it never spins, and
// breaking out loses nothing. One consumer at a time.
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

// drain yields what is left in the buffer.
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
