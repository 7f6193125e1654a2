package rpc

import (
	"cmp"
	"context"
	"crypto/tls"
	"maps"
	"net"
	"time"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp/internal/dial"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

// Defaults of Options.
const (
	DefaultPingInterval = 10 * time.Second
	DefaultPingTimeout  = 5 * time.Second
	DefaultMaxAbandoned = 64
)

// Options configures an RPC client; see New. The zero value of every
// field means its documented default.
type Options struct {
	// TLS, if set, makes every connection TLS (nil: plain TCP), the address's
	// host being an empty ServerName, as in tcptls. KeepAlive, UserTimeout
	// and Resolver say how to dial, as in tcp.Options, with the same
	// defaults and bounds.
	TLS         *tls.Config
	KeepAlive   net.KeepAliveConfig
	UserTimeout time.Duration
	Resolver    *net.Resolver
	// Handlers are the methods the server may call on the client, by name;
	// each is a func(*rpc2.Client, Args, *Reply) error as rpc2.Client.Handle
	// takes. They are registered on every new client, before it reads.
	// rpc2 runs each request on its own goroutine, which may outlive the
	// connection for as long as the handler runs: a long handler should
	// watch its client's DisconnectNotify. The map is copied.
	Handlers map[string]any
	// Replicas are more addresses (host:port) of the same service, as in
	// package tcp.
	Replicas []string
	// PingMethod is called every PingInterval, and once inside every
	// attempt; no reply within PingTimeout (in an attempt: ConnectTimeout)
	// breaks the connection with an error wrapping supervisor.ErrSilent.
	// Defaults: the method HandlePing serves, 10s, 5s. A server without
	// the method is a permanent error.
	PingMethod   string
	PingInterval time.Duration
	PingTimeout  time.Duration
	// DisablePing turns pinging off, and then setting PingMethod,
	// PingInterval or PingTimeout is an error: only a closed or reset
	// socket (or TCP_USER_TIMEOUT) breaks a connection, and an attempt
	// succeeds once TCP (and TLS) connected.
	DisablePing bool
	// MaxAbandoned is how many calls whose ctx ended before their reply a
	// connection may hold before it is recycled; 0 means 64. rpc2 keeps
	// every call until its reply or the connection's end.
	MaxAbandoned int
	// OnConnect runs on every new connection before it counts as
	// Connected (see supervisor.Options.OnConnect): call it with
	// CallClient.
	OnConnect func(ctx context.Context, client *rpc2.Client) error
	// Supervisor configures the supervisor; its Name defaults to the
	// address, and its Classify, if set, runs after this package's.
	Supervisor supervisor.Settings
}

// supervisor returns the supervisor's options of o.
func (o Options) supervisor() supervisor.Options[*rpc2.Client] {
	return supervisor.Options[*rpc2.Client]{Settings: o.Supervisor, OnConnect: o.OnConnect}
}

// dialOptions returns the dial part of o.
func (o Options) dialOptions() dial.Options {
	return dial.Options{
		KeepAlive:   o.KeepAlive,
		UserTimeout: o.UserTimeout,
		Resolver:    o.Resolver,
	}
}

// validate checks the RPC part of o and returns it with the defaults
// filled in and Handlers copied.
func (o Options) validate() (Options, error) {
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"PingInterval", o.PingInterval}, {"PingTimeout", o.PingTimeout}} {
		if err := opterr.Duration("rpc", f.name, f.d); err != nil {
			return o, err
		}
	}
	if o.MaxAbandoned < 0 {
		return o, opterr.New("rpc", "MaxAbandoned", o.MaxAbandoned, "negative")
	}
	if o.DisablePing {
		const problem = "set while DisablePing is true"
		switch {
		case o.PingMethod != "":
			return o, opterr.New("rpc", "PingMethod", o.PingMethod, problem)
		case o.PingInterval != 0:
			return o, opterr.New("rpc", "PingInterval", o.PingInterval, problem)
		case o.PingTimeout != 0:
			return o, opterr.New("rpc", "PingTimeout", o.PingTimeout, problem)
		}
	}
	for name, h := range o.Handlers {
		if err := checkHandler(name, h); err != nil {
			return o, err
		}
	}
	o.PingMethod = cmp.Or(o.PingMethod, pingMethod)
	o.PingInterval = cmp.Or(o.PingInterval, DefaultPingInterval)
	o.PingTimeout = cmp.Or(o.PingTimeout, DefaultPingTimeout)
	o.MaxAbandoned = cmp.Or(o.MaxAbandoned, DefaultMaxAbandoned)
	o.Handlers = maps.Clone(o.Handlers)
	return o, nil
}
