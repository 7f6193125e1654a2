package tcp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"

	"github.com/redial-go/redial/supervisor"
)

// Connector dials plain TCP or TLS connections for a
// supervisor.Supervisor[net.Conn]. It is safe for concurrent use.
//
// It is not a supervisor.Watcher: a byte stream cannot be watched without
// taking bytes from the program. The program's reader is the watcher: when
// a Read or Write fails (io.EOF, a reset, a timeout), it calls
// Reconnect (or the supervisor's Invalidate), and the supervisor closes
// conn and dials again.
type Connector struct {
	d         *dialer
	handshake func(context.Context, net.Conn) error
}

// NewConnector validates o (see New for the defaults) and returns a
// Connector. o.Supervisor is not used.
func NewConnector(o Options) (*Connector, error) {
	if err := o.DialOptions.validate(); err != nil {
		return nil, err
	}
	return &Connector{d: newDialer(o.DialOptions), handshake: o.Handshake}, nil
}

// Connect dials once within ctx (the attempt's timeout) and runs the
// Handshake, if any.
func (c *Connector) Connect(ctx context.Context) (net.Conn, error) {
	conn, err := c.d.dial(ctx)
	if err != nil {
		return nil, err
	}
	if c.handshake != nil {
		if err := withDeadline(ctx, conn, c.handshake); err != nil {
			_ = c.Close(conn)
			return nil, fmt.Errorf("handshake with %s: %w", c.d.addr, err)
		}
	}
	return conn, nil
}

// Close closes conn. A TLS connection is closed without a close_notify
// alert: the supervisor closes connections it considers broken, and a
// close_notify written to a stalled peer could block for seconds. A conn
// the program closed already is not an error.
func (c *Connector) Close(conn net.Conn) error {
	if tc, ok := conn.(*tls.Conn); ok {
		conn = tc.NetConn()
	}
	if err := conn.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// New returns a supervisor of TCP (or TLS) connections to o.Address; Run
// starts it. The options are copied and their zero values mean:
//   - KeepAlive: enabled, Idle 15s, Interval 5s, Count 3;
//   - UserTimeout: 30s on Linux (TCP_USER_TIMEOUT), none elsewhere;
//   - TLS: none (plain TCP); Resolver: net.DefaultResolver; Handshake: none;
//   - Supervisor: the supervisor package's defaults (Backoff Decorrelated,
//     Base 1s, Cap 1 minute; StableAfter 30s; ConnectTimeout 20s; ...),
//     with this package's Classify run before the program's.
//
// Bad options are an error that names the field. The program reads and
// writes the connection from Conn and reports failures with Reconnect (or
// Invalidate); see the package doc.
func New(o Options) (*supervisor.Supervisor[net.Conn], error) {
	c, err := NewConnector(o)
	if err != nil {
		return nil, err
	}
	so := o.Supervisor
	so.Classify = supervisor.ChainClassify(Classify, so.Classify)
	return supervisor.New[net.Conn](c, so)
}
