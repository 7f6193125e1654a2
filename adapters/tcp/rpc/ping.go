package rpc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// pingMethod is Options.PingMethod's default, the method HandlePing
// registers.
const pingMethod = "redial.Heartbeat"

// HandlePing registers on srv the method a Client pings by default (it
// echoes the Client's sequence number).
func HandlePing(srv *rpc2.Server) { srv.Handle(pingMethod, echo) }

func echo(_ *rpc2.Client, seq uint64, reply *uint64) error {
	*reply = seq
	return nil
}

// noMethodPrefix starts the ServerError rpc2 answers for an unknown method.
const noMethodPrefix = "rpc2: can't find method "

// ping calls PingMethod once on s within ctx and, when silent is set,
// within PingTimeout, ending then with silent. A server without the
// method is a permanent error: retrying cannot add it.
func (c *connector) ping(ctx context.Context, s *session, silent error) error {
	if silent != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.o.PingTimeout, silent)
		defer cancel()
	}
	seq := c.seq.Add(1)
	var reply uint64
	_, err := s.call(ctx, c.o.PingMethod, seq, &reply)
	var se rpc2.ServerError
	switch {
	case err == nil && reply != seq:
		return fmt.Errorf("ping: reply %d to %d", reply, seq)
	case err == nil:
		return nil
	case errors.As(err, &se) && strings.HasPrefix(string(se), noMethodPrefix):
		return backoff.Permanent(fmt.Errorf("ping: the server has no method %q "+
			"(serve it with rpc.HandlePing, or set DisablePing): %w", c.o.PingMethod, err))
	}
	return fmt.Errorf("ping: %w", err)
}

// silentAfter is the error of a ping that got no reply within d.
func silentAfter(d time.Duration) error {
	return fmt.Errorf("%w: no reply within %v", supervisor.ErrSilent, d)
}
