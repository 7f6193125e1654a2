package supervisor

import (
	"context"
	"fmt"
	"iter"
)

// Do waits for a live connection and runs f with it once. When f's error
// broke the connection (the Connector's BrokenChecker says so; without one,
// every error does) the connection is invalidated with that error, so the
// supervisor reconnects at once. Do returns f's error as is, or, when no
// connection came, Conn's error: ctx ended, or the supervisor stopped,
// gave up or drains (Drain waits for f). Do never calls f twice; whether
// f may run again is for the program to decide.
func (s *Supervisor[C]) Do(ctx context.Context, f func(ctx context.Context, conn C) error) error {
	conn, err := s.conn(ctx, true)
	if err != nil {
		return err
	}
	defer s.release(conn)
	if err := f(ctx, conn); err != nil {
		if b, ok := s.connector.(BrokenChecker); !ok || b.Broken(err) {
			s.Invalidate(conn, err)
		}
		return err
	}
	return nil
}

// errReleased is the reason a Connections loop body gives by returning
// while its connection is still live.
var errReleased = fmt.Errorf("%w: the Connections loop body returned without Invalidate", ErrInvalidated)

// Connections yields each live connection once, in order, waiting while
// there is none, and ends when ctx ends or the supervisor stops or fails
// (Err says which, once Done). When the loop body returns while its
// connection is still live, that connection is invalidated — the body is
// done with it — so the next iteration gets the next connection; call
// Invalidate first to record why (a read's io.EOF, say). A break leaves
// the connection as it is. A loop over Connections never spins: after
// Failed it ends. A body is long-lived work, not a call: Drain does not
// wait for it (the goodbye ends its reads), as net/http's Shutdown leaves
// hijacked connections; Do's f it waits for.
func (s *Supervisor[C]) Connections(ctx context.Context) iter.Seq[C] {
	return func(yield func(C) bool) {
		for {
			conn, err := s.Conn(ctx)
			if err != nil || !yield(conn) {
				return
			}
			s.Invalidate(conn, errReleased)
		}
	}
}
