package rpc

import (
	"context"
	"errors"
	"fmt"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp/internal/dial"
	"github.com/redial-go/redial/adapters/tcp/internal/tlsdial"
	"github.com/redial-go/redial/adapters/tcp/tcptls"
	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/supervisor"
)

// Client is a supervisor of rpc2 clients, one per connection, with the
// program's handlers registered on each: Call and CallClient, and the
// supervisor's Run, Status, Subscribe, Done, Err, Name, History and
// RetryNow. It is safe for concurrent use.
type Client struct {
	lifecycle
	sup *supervisor.Supervisor[*rpc2.Client]
	c   *connector
}

// lifecycle is what a Client offers of its supervisor.
type lifecycle = adapt.Lifecycle[*rpc2.Client]

// New returns a Client of the server at address (host:port, resolved on
// every attempt); Run starts it. The options are copied; their zero values
// mean the defaults of tcp.New for dialing, no Handlers, a ping every 10s
// answered within 5s, MaxAbandoned 64, and the supervisor's defaults with
// Name the address (ConnectTimeout bounds the dial and the first ping
// together). A bad address or option is an error wrapping
// supervisor.ErrInvalidOptions that names it: `rpc: Handlers["M"]: nil
// func`.
func New(address string, o Options) (*Client, error) {
	d, err := dial.New("rpc", address, o.Replicas, o.dialOptions(), tlsdial.Layer(o.TLS))
	if err != nil {
		return nil, err
	}
	if o, err = o.validate(); err != nil {
		return nil, err
	}
	c := &connector{d: d, o: o, silent: silentAfter(o.PingTimeout), sessions: map[*rpc2.Client]*session{}}
	sp := adapt.Spec{Pkg: "rpc", Name: address, Classify: Classify}
	s, err := adapt.New(sp, c, o.supervisor())
	if err != nil {
		return nil, err
	}
	return &Client{lifecycle: adapt.Lift(s), sup: s, c: c}, nil
}

// Call calls method on the server and waits for its reply, all bounded by
// ctx. While there is no connection it waits for the next one. A request
// that never left (the connection was already dead) is made again on the
// next connection; one that may have reached the server is not, and its
// connection error is returned after the connection is invalidated. A
// call whose ctx ends may still reach the server; its late reply is
// discarded (reply is written only when Call returns nil).
//
// args are encoded on a goroutine of the connection, which the supervisor
// waits for when it closes the connection: their GobEncode (or
// MarshalBinary) must not block. A nil args or a reply that is not a
// non-nil pointer is an error, not a panic.
func (r *Client) Call(ctx context.Context, method string, args, reply any) error {
	if err := checkCall(args, reply); err != nil {
		return fmt.Errorf("call %s: %w", method, err)
	}
	for {
		client, release, err := r.sup.Acquire(ctx) // held: Drain waits for the reply
		if err != nil {
			return fmt.Errorf("call %s: %w", method, err)
		}
		s := r.c.session(client)
		if s == nil {
			release()
			continue // closed since Acquire returned it: it is handed out no more
		}
		sent, err := r.call(ctx, s, method, args, reply)
		release()
		if err == nil {
			return nil
		}
		var se rpc2.ServerError // after the success path: errors.As moves it to the heap
		if errors.As(err, &se) || ctx.Err() != nil {
			return fmt.Errorf("call %s: %w", method, err)
		}
		if sent {
			r.sup.Invalidate(client, err)
			return fmt.Errorf("call %s: %w", method, err)
		}
		// Never sent: rpc2 had shut this client down, and the supervisor
		// drops it as soon as its Watch sees DisconnectNotify. Wait for
		// that, then try the next connection.
		select {
		case <-s.closed:
		case <-ctx.Done():
			return fmt.Errorf("call %s: %w (last error: %w)", method, ctx.Err(), err)
		}
	}
}

// CallClient makes one call on client, bounded by ctx, without waiting for
// a connection, retrying or invalidating: for OnConnect, where
// Call would wait for the connection being set up. Its reply and abandoned
// calls are handled as in Call.
func (r *Client) CallClient(ctx context.Context, client *rpc2.Client, method string, args, reply any) error {
	if err := checkCall(args, reply); err != nil {
		return fmt.Errorf("call %s: %w", method, err)
	}
	s := r.c.session(client)
	if s == nil {
		return fmt.Errorf("call %s: %w", method, rpc2.ErrShutdown)
	}
	if _, err := r.call(ctx, s, method, args, reply); err != nil {
		return fmt.Errorf("call %s: %w", method, err)
	}
	return nil
}

// Classify sorts errors for the supervisor as tcptls.Classify does: DNS
// failures said plainly, TLS misconfiguration permanent, a keep-alive or
// TCP_USER_TIMEOUT expiry wrapping supervisor.ErrSilent. A ping without
// a reply wraps supervisor.ErrSilent already; a server without the ping
// method is permanent already.
func Classify(err error) error { return tcptls.Classify(err) }
