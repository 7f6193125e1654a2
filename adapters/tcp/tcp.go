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
//   - KeepAlive: enabled, Idle 15s, Interval 5s, Count 3;
//   - UserTimeout: 30s on Linux (TCP_USER_TIMEOUT), none elsewhere;
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
	d, err := dial.New("tcp", address, o.dialOptions())
	if err != nil {
		return nil, err
	}
	c := &connector{d: d, handshake: o.Handshake}
	return adapt.New(adapt.Spec{Pkg: "tcp", Name: address, Classify: Classify}, c, o.Supervisor)
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
func (c *connector) Connect(ctx context.Context) (net.Conn, error) {
	conn, err := c.d.Dial(ctx)
	if err != nil {
		return nil, err
	}
	if c.handshake != nil {
		if err := dial.WithDeadline(ctx, conn, c.handshake); err != nil {
			_ = dial.Close(conn)
			return nil, fmt.Errorf("handshake with %s: %w", c.d.Addr(), err)
		}
	}
	return conn, nil
}

// Close closes conn without a TLS close_notify (see dial.Close); a conn
// the program closed already is not an error.
func (c *connector) Close(conn net.Conn) error { return dial.Close(conn) }
