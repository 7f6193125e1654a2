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
// (host:port, resolved on every attempt), ready to Run. Defaults: plain
// TCP, keep-alive after 5s idle, TCP_USER_TIMEOUT 15s on Linux,
// supervisor.New's, Name the address. New copies o.
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

// connector has no Watch: the program's reader is the watcher.
type connector struct {
	d         *dial.Dialer
	handshake func(context.Context, net.Conn) error
}

func (c *connector) Connect(ctx context.Context) (net.Conn, error) { return c.connectTo(ctx, 0) }

// connectTo dials endpoint i and runs the Handshake, if any.
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

func (c *connector) Close(conn net.Conn) error { return dial.Close(conn) }

// replicas is the connector of the address and the Replicas.
type replicas struct{ *connector }

func (r replicas) Endpoints() []string { return r.d.Addrs() }

func (r replicas) ConnectTo(ctx context.Context, i int) (net.Conn, error) { return r.connectTo(ctx, i) }
