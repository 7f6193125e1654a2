package dial

import (
	"context"
	"fmt"
	"net"

	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/internal/callback"
	"github.com/redial-go/redial/supervisor"
)

// Link is what tcp.New and tcptls.New make a supervisor of.
type Link struct {
	Pkg        string // the package that reports errors: "tcp"
	Address    string
	Replicas   []string
	Options    Options
	Layer      Layer // TLS's; nil: plain TCP
	Handshake  func(ctx context.Context, conn net.Conn) error
	Classify   func(error) error // the adapter's
	OnConnect  func(ctx context.Context, conn net.Conn) error
	Supervisor supervisor.Settings
}

// NewLink returns the supervisor of l's connections, named after l's
// address unless its Supervisor options name it.
func NewLink(l Link) (*supervisor.Supervisor[net.Conn], error) {
	d, err := New(l.Pkg, l.Address, l.Replicas, l.Options, l.Layer)
	if err != nil {
		return nil, err
	}
	c := &connector{d: d, handshake: l.Handshake}
	sp := adapt.Spec{Pkg: l.Pkg, Name: l.Address, Classify: l.Classify}
	return adapt.New(sp, c, supervisor.Options[net.Conn]{Settings: l.Supervisor, OnConnect: l.OnConnect})
}

// connector has no Watch: the program's reader is the watcher.
type connector struct {
	d         *Dialer
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
			_ = Close(conn)
		}
	}()
	if err := callback.Guard("Handshake", func() error { return WithDeadline(ctx, conn, c.handshake) }); err != nil {
		return nil, fmt.Errorf("handshake with %s: %w", c.d.Addrs()[i], err)
	}
	ok = true
	return conn, nil
}

func (c *connector) Close(conn net.Conn) error { return Close(conn) }

// Endpoints returns the address and the Replicas.
func (c *connector) Endpoints() []string { return c.d.Addrs() }

func (c *connector) ConnectTo(ctx context.Context, i int) (net.Conn, error) {
	return c.connectTo(ctx, i)
}
