package rpc

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp/internal/dial"
)

// connector is the supervisor.Connector, Watcher and BrokenChecker of a
// Client: one rpc2.Client, with its handlers and its read loop, per
// connection.
type connector struct {
	d      *dial.Dialer
	o      Options // validated
	silent error   // a ping's error without a reply within PingTimeout
	seq    atomic.Uint64

	mu       sync.Mutex
	sessions map[*rpc2.Client]*session
}

// Connect dials, registers the handlers on a new client, starts its read
// loop and, unless DisablePing, pings once within ctx: a server that does
// not answer fails the attempt.
func (c *connector) Connect(ctx context.Context) (*rpc2.Client, error) { return c.connectTo(ctx, 0) }

// connectTo is Connect on endpoint i.
func (c *connector) connectTo(ctx context.Context, i int) (*rpc2.Client, error) {
	conn, err := c.d.Dial(ctx, i)
	if err != nil {
		return nil, err
	}
	s := newSession(conn)
	if err := s.handle(c.o.Handlers); err != nil {
		_ = conn.Close()
		return nil, err
	}
	c.mu.Lock()
	c.sessions[s.client] = s
	c.mu.Unlock()
	s.start()
	if !c.o.DisablePing {
		if err := c.ping(ctx, s, nil); err != nil {
			_ = c.Close(s.client)
			return nil, err
		}
	}
	return s.client, nil
}

// Close closes client's connection and returns once its read loop and
// every write on it have ended.
func (c *connector) Close(client *rpc2.Client) error {
	c.mu.Lock()
	s := c.sessions[client]
	delete(c.sessions, client)
	c.mu.Unlock()
	if s != nil {
		s.close()
	}
	return nil
}

// session returns client's session, nil once it was closed.
func (c *connector) session(client *rpc2.Client) *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions[client]
}

// Watch returns when client's connection closes (DisconnectNotify) or a
// ping gets no reply within PingTimeout, with the reason, or when ctx
// ends.
func (c *connector) Watch(ctx context.Context, client *rpc2.Client) error {
	s := c.session(client)
	if s == nil {
		return errors.New("watch: client already closed")
	}
	if c.o.DisablePing {
		select {
		case <-client.DisconnectNotify():
			return s.lost()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	t := time.NewTimer(c.o.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-client.DisconnectNotify():
			return s.lost()
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		if err := c.ping(ctx, s, c.silent); err != nil {
			if s.ended() {
				return s.lost() // the read error says more than the failed ping
			}
			return err
		}
		t.Reset(c.o.PingInterval)
	}
}

// Broken tells Do which errors of its f broke the connection: neither a
// server's answer (rpc2.ServerError) nor f's ctx ending did, as in Call.
func (c *connector) Broken(err error) bool {
	var se rpc2.ServerError
	return !errors.As(err, &se) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// Endpoints returns the address and the Replicas.
func (c *connector) Endpoints() []string { return c.d.Addrs() }

// ConnectTo makes one attempt on endpoint i.
func (c *connector) ConnectTo(ctx context.Context, i int) (*rpc2.Client, error) {
	return c.connectTo(ctx, i)
}
