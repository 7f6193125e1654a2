package tcp

import (
	"context"
	"fmt"
	"net"

	"github.com/redial-go/redial/adapters/tcp/internal/dial"
	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/supervisor"
)

// New returns a supervisor of TCP (or TLS) connections to address
// (host:port; the host may be a name, resolved on every attempt); Run
// starts it. The options are copied and their zero values mean:
//   - TLS: none (plain TCP); Resolver: net.DefaultResolver; Handshake: none;
//   - KeepAlive: enabled, Idle 5s, Interval 3s, Count 3;
//   - UserTimeout: 15s on Linux (TCP_USER_TIMEOUT), none elsewhere;
//   - Replicas: none;
//   - Supervisor: Name the address; otherwise the supervisor package's
//     defaults (Backoff Decorrelated, Base 1s, Cap 1 minute; StableAfter
//     30s; ConnectTimeout 10s; ...), with this package's Classify run
//     before the program's.
//
// A bad address or option is an error wrapping
// supervisor.ErrInvalidOptions that names it: `tcp: address "x": missing
// port in address`, `tcp: UserTimeout -1s: negative`. The program uses
// the connections with Do or Connections and reports a failed one with
// Invalidate; see the package doc.
func New(address string, o Options) (*supervisor.Supervisor[net.Conn], error) {
	d, err := dial.New("tcp", address, o.Replicas, o.dialOptions())
	if err != nil {
		return nil, err
	}
	c := &connector{d: d, handshake: o.Handshake}
	sp := adapt.Spec{Pkg: "tcp", Name: address, Classify: Classify}
	if len(o.Replicas) > 0 {
		return adapt.New[net.Conn](sp, replicas{c}, o.Supervisor)
	}
	return adapt.New(sp, c, o.Supervisor)
}

// connector dials plain TCP or TLS connections. It is not a
// supervisor.Watcher: a byte stream cannot be watched without taking bytes
// from the program, whose reader is the watcher.
type connector struct {
	d         *dial.Dialer
	handshake func(context.Context, net.Conn) error
}

// Connect dials once within ctx (the attempt's timeout) and runs the
// Handshake, if any.
func (c *connector) Connect(ctx context.Context) (net.Conn, error) { return c.connectTo(ctx, 0) }

// connectTo is Connect on endpoint i.
func (c *connector) connectTo(ctx context.Context, i int) (net.Conn, error) {
	conn, err := c.d.Dial(ctx, i)
	if err != nil {
		return nil, err
	}
	if c.handshake == nil {
		return conn, nil
	}
	ok := false
	defer func() {
		if !ok { // the Handshake failed or panicked
			_ = dial.Close(conn)
		}
	}()
	if err := dial.WithDeadline(ctx, conn, c.handshake); err != nil {
		return nil, fmt.Errorf("handshake with %s: %w", c.d.Addrs()[i], err)
	}
	ok = true
	return conn, nil
}

// Close closes conn without a TLS close_notify (see dial.Close); a conn
// the program closed already is not an error.
func (c *connector) Close(conn net.Conn) error { return dial.Close(conn) }

// replicas is the connector of several endpoints: the supervisor calls
// ConnectTo.
type replicas struct{ *connector }

// Endpoints returns the address and the Replicas.
func (r replicas) Endpoints() []string { return r.d.Addrs() }

// ConnectTo makes one attempt on endpoint i.
func (r replicas) ConnectTo(ctx context.Context, i int) (net.Conn, error) { return r.connectTo(ctx, i) }
