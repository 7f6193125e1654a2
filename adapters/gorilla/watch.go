package gorilla

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/supervisor"
)

// Watch is the heartbeat. It runs on the supervisor's goroutine: every
// PingInterval it writes a ping with WriteControl (which
// gorilla/websocket allows alongside the program's writer) and waits
// PingTimeout for the pong, which the pong handler records. It returns
// when no pong and no message came within PingTimeout (ErrHeartbeat),
// when the ping finds the connection closed (with the server's close
// frame, when a reader saw one), in WriteOnly mode when the adapter's
// reader ends (a close frame's status reaches Classify), or when ctx ends
// (Invalidate, the supervisor stopping). After all but the last, Close
// skips the close frame: the connection is known to be broken. A silent
// peer is found within PingInterval + PingTimeout.
//
// A pong is only seen by a goroutine reading the connection: the
// program's (see Messages) or, with WriteOnly, the adapter's. If nothing
// reads, every ping fails and the connection is replaced after
// PingInterval + PingTimeout, with an ErrHeartbeat that says so.
func (c *connector) Watch(ctx context.Context, conn *websocket.Conn) error {
	st := stateOf(conn)
	if st == nil { // not one of this connector's: nothing to watch with
		<-ctx.Done()
		return ctx.Err()
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
				st.fail(nil)
			}
			return ctx.Err()
		case <-st.readDone: // WriteOnly: the connection is closed, or closing
			st.fail(nil)
			return st.readErr
		case <-t.C:
		}
		if err := c.ping(ctx, conn, st); err != nil {
			if ctx.Err() != nil {
				continue // report ctx's end above
			}
			select {
			case <-st.readDone:
				continue // the reader has the better reason (a close status)
			default:
			}
			st.fail(err)
			return err
		}
		t.Reset(c.o.PingInterval)
	}
}

// ping writes one ping and waits PingTimeout for its pong. A message read
// since the ping was written counts as well: the peer is alive.
func (c *connector) ping(ctx context.Context, conn *websocket.Conn, st *connState) error {
	select {
	case <-st.pong: // of an earlier ping
	default:
	}
	sent := time.Now()
	deadline := sent.Add(c.o.PingTimeout)
	st.ask.Store(true) // the next message read records the time (heardFrom)
	if err := conn.WriteControl(websocket.PingMessage, nil, deadline); err != nil {
		if ce := st.closed.Load(); ce != nil {
			return fmt.Errorf("heartbeat: the server closed the connection: %w", ce)
		}
		if errors.Is(err, net.ErrClosed) || errors.Is(err, websocket.ErrCloseSent) {
			return fmt.Errorf("heartbeat: connection closed: %w", err)
		}
		return fmt.Errorf("%w: ping: %w", ErrHeartbeat, err)
	}
	wait := time.NewTimer(time.Until(deadline))
	defer wait.Stop()
	select {
	case <-st.pong:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-st.readDone:
		return st.readErr
	case <-wait.C:
	}
	if st.heard.Load() >= sent.UnixNano() {
		// Messages, but no pong: the peer is alive. Ask again, so that the
		// read deadline moves past the next ping's timeout with the next
		// message (heardFrom).
		st.ask.Store(true)
		return nil
	}
	return fmt.Errorf("%w: no pong within %v (the peer is silent, or nothing reads the connection)", ErrHeartbeat, c.o.PingTimeout)
}

// readForWriter is the one goroutine per connection of WriteOnly mode: it
// reads, so that pongs, pings and close frames are handled, until the
// connection ends. It never reads a message: one that arrives ends the
// connection.
func readForWriter(conn *websocket.Conn, st *connState) {
	defer close(st.readDone)
	_, _, err := conn.NextReader()
	if err == nil {
		err = ErrUnexpectedData
		_ = conn.Close()
	}
	st.readErr = st.readFailure(err)
	st.endRead()
}
