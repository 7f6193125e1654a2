package websocket

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/supervisor"
)

// Watch is the heartbeat. It runs on the supervisor's goroutine: every
// PingInterval it sends a ping and waits PingTimeout for the pong. It
// returns when a pong is missing (ErrHeartbeat), when the ping finds the
// connection closed, in WriteOnly mode when the adapter's reader ends (a
// close frame's status reaches Classify), or when ctx ends (Invalidate, the
// supervisor stopping). After all but the last, Close skips the close
// handshake: the connection is known to be broken. A silent peer is found within PingInterval + PingTimeout.
//
// A pong is only seen by a goroutine reading the connection: the program's
// (see Messages) or, with WriteOnly, the adapter's. If nothing reads, every
// ping fails and the connection is replaced after PingInterval +
// PingTimeout, with an ErrHeartbeat that says so.
func (c *connector) Watch(ctx context.Context, conn *websocket.Conn) error {
	st := stateOf(conn)
	var readDone <-chan struct{}
	if st != nil {
		readDone = st.readDone
	}
	t := time.NewTimer(c.o.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			var inv *supervisor.InvalidatedError
			if errors.As(context.Cause(ctx), &inv) {
				// Invalidate: the program saw conn fail (a failed read).
				// Any other cause is the supervisor stopping: Close then
				// says goodbye (1000).
				markBroken(conn)
			}
			return ctx.Err()
		case <-readDone: // the connection is closed, or closing
			markBroken(conn)
			return st.readErr
		case <-t.C:
		}
		if err := c.ping(ctx, conn); err != nil {
			if ctx.Err() != nil {
				continue // report ctx's end above
			}
			select {
			case <-readDone:
				continue // the reader has the better reason (a close status)
			default:
			}
			markBroken(conn)
			return err
		}
		t.Reset(c.o.PingInterval)
	}
}

// ping sends one ping and waits PingTimeout for its pong.
func (c *connector) ping(ctx context.Context, conn *websocket.Conn) error {
	pctx, cancel := context.WithTimeout(ctx, c.o.PingTimeout)
	defer cancel()
	err := conn.Ping(pctx)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, net.ErrClosed):
		return fmt.Errorf("heartbeat: connection closed: %w", err)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return fmt.Errorf("%w: no pong within %v (the peer is silent, or nothing reads the connection)", ErrHeartbeat, c.o.PingTimeout)
	}
	return fmt.Errorf("%w: %w", ErrHeartbeat, err)
}

// readForWriter is the one goroutine per connection of WriteOnly mode: it
// reads, so that pongs and close frames are handled, until the connection
// ends. It never reads a message: one that arrives ends the connection.
func readForWriter(conn *websocket.Conn, st *connState) {
	defer close(st.readDone)
	_, _, err := conn.Reader(context.Background())
	if err == nil {
		err = ErrUnexpectedData
		_ = conn.CloseNow()
	}
	st.readErr = err
}
