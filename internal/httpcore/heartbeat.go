package httpcore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/redial-go/redial/supervisor"
)

// Heartbeat is a WebSocket adapter's Watch, on the supervisor's goroutine:
// every PingInterval, ping sends a ping and waits for its pong until its
// ctx ends, PingTimeout later. It returns when a pong is missing
// (ErrHeartbeat), when the ping finds the connection closed, when the
// WriteOnly reader ends (with its reason: a close frame's status reaches
// Classify), or when ctx ends (Invalidate, the supervisor stopping). After
// all but the last, Close drops the connection: it is known to be broken.
//
// A pong is only seen by a goroutine reading the connection: the program's
// or, with WriteOnly, the adapter's. If nothing reads, every ping fails and
// the connection is replaced, with an ErrHeartbeat that says so.
func (st *State) Heartbeat(ctx context.Context, ping func(ctx context.Context) error) error {
	t := time.NewTimer(st.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if _, ok := errors.AsType[*supervisor.InvalidatedError](context.Cause(ctx)); ok {
				st.Fail(nil) // the program saw the connection fail; any other cause is a stop: goodbye
			}
			return ctx.Err()
		case <-st.readDone: // nil without WriteOnly
			st.Fail(nil)
			return st.readErr
		case <-t.C:
		}
		if err := st.ping(ctx, ping); err != nil {
			if ctx.Err() != nil {
				continue // report ctx's end above
			}
			select {
			case <-st.readDone:
				continue // the reader has the better reason (a close status)
			default:
			}
			st.Fail(err)
			return err
		}
		t.Reset(st.PingInterval)
	}
}

// ping makes one ping and says why it failed.
func (st *State) ping(ctx context.Context, ping func(ctx context.Context) error) error {
	pctx, cancel := context.WithTimeout(ctx, st.PingTimeout)
	defer cancel()
	err := ping(pctx)
	if err == nil {
		return nil
	}
	closing := false
	if st.Codes != nil {
		_, _, closing = st.Codes.Of(err)
	}
	switch {
	case closing:
		return fmt.Errorf("heartbeat: the server closed the connection: %w", err)
	case errors.Is(err, net.ErrClosed):
		return fmt.Errorf("heartbeat: connection closed: %w", err)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return fmt.Errorf("%w: no pong within %v (the peer is silent, or nothing reads the connection)", ErrHeartbeat, st.PingTimeout)
	}
	return fmt.Errorf("%w: %w", ErrHeartbeat, err)
}
