package rpc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/backoff"
)

// HeartbeatMethod is the method a Client calls, by default, to
// tell a live server from a silent one. A server registers it with
// HandleHeartbeat.
const HeartbeatMethod = "redial.Heartbeat"

// Heartbeat is the server side of the heartbeat: it echoes seq. Any method
// with its signature serves as Options.HeartbeatMethod.
func Heartbeat(_ *rpc2.Client, seq uint64, reply *uint64) error {
	*reply = seq
	return nil
}

// HandleHeartbeat registers Heartbeat on srv as HeartbeatMethod.
func HandleHeartbeat(srv *rpc2.Server) { srv.Handle(HeartbeatMethod, Heartbeat) }

// noMethodPrefix starts the ServerError rpc2 answers for an unknown method.
const noMethodPrefix = "rpc2: can't find method "

// heartbeat calls the heartbeat method once on s, bounded by ctx and, when
// timeout > 0, by timeout. A server that lacks the method is a permanent
// error: retrying cannot add it.
func (c *connector) heartbeat(ctx context.Context, s *session, timeout time.Duration) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, fmt.Errorf("no reply within %v", timeout))
		defer cancel()
	}
	seq := c.seq.Add(1)
	var reply uint64
	_, err := s.call(ctx, c.o.HeartbeatMethod, seq, &reply)
	var se rpc2.ServerError
	switch {
	case err == nil && reply != seq:
		return fmt.Errorf("heartbeat: reply %d to %d", reply, seq)
	case err == nil:
		return nil
	case errors.As(err, &se) && strings.HasPrefix(string(se), noMethodPrefix):
		return backoff.Permanent(fmt.Errorf("heartbeat: the server has no method %q "+
			"(register rpc.Heartbeat on it, or set DisableHeartbeat): %w", c.o.HeartbeatMethod, err))
	}
	return fmt.Errorf("heartbeat: %w", err)
}
