package rpc

import (
	"cmp"
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
	DefaultHeartbeatInterval = 10 * time.Second
	DefaultHeartbeatTimeout  = 5 * time.Second
	DefaultMaxAbandoned      = 64
)

// Options configures an RPC client; see New. The zero value of every
// field means its documented default.
type Options struct {
	// TLS, KeepAlive, DisableKeepAlive, UserTimeout and Resolver say how to
	// dial, exactly as in tcp.Options (whose doc says more): TLS is cloned,
	// keep-alive defaults to Idle 5s, Interval 3s, Count 3
	// (tcp.DefaultKeepAlive*), UserTimeout (TCP_USER_TIMEOUT) to 15s on
	// Linux and nothing elsewhere, Resolver to net.DefaultResolver.
	TLS              *tls.Config
	KeepAlive        net.KeepAliveConfig
	DisableKeepAlive bool
	UserTimeout      time.Duration
	Resolver         *net.Resolver
	// Handlers are the methods the server may call on the client, by name;
	// each is a func(*rpc2.Client, Args, *Reply) error as rpc2.Client.Handle
	// takes. They are registered on every new client, before it reads.
	// rpc2 runs each request on its own goroutine, which may outlive the
	// connection for as long as the handler runs: a long handler should
	// watch its client's DisconnectNotify. The map is copied.
	Handlers map[string]any
	// Replicas are more addresses (host:port) of the same service: after a
	// failed attempt or a lost connection the next one is tried at once
	// (within the supervisor's FailoverSpread), as in package tcp.
	Replicas []string
	// HeartbeatMethod is called every HeartbeatInterval on an idle or busy
	// connection, and once inside every attempt; a reply later than
	// HeartbeatTimeout (in an attempt: later than ConnectTimeout) breaks the
	// connection. Defaults: HeartbeatMethod, 10s, 5s — a silent server is
	// found within 15s. The server must serve the method (HandleHeartbeat);
	// one that does not is a permanent error.
	HeartbeatMethod   string
	HeartbeatInterval time.Duration
	HeartbeatTimeout  time.Duration
	// DisableHeartbeat turns the heartbeat off: then only a closed or reset
	// socket (or TCP_USER_TIMEOUT) breaks a connection, and an attempt
	// succeeds once TCP (and TLS) connected.
	DisableHeartbeat bool
	// MaxAbandoned is how many calls whose ctx ended before their reply a
	// connection may hold before it is recycled; 0 means 64. rpc2 keeps
	// every call until its reply arrives or the connection closes, so
	// without this a server that never answers one method would grow them
	// without bound while its heartbeat stays healthy.
	MaxAbandoned int
	// Supervisor configures the supervisor; its Name defaults to the
	// address, and its Classify, if set, runs after this package's
	// (tcp.Classify).
	Supervisor supervisor.Options[*rpc2.Client]
}

// dialOptions returns the dial part of o.
func (o Options) dialOptions() dial.Options {
	return dial.Options{
		TLS:              o.TLS,
		KeepAlive:        o.KeepAlive,
		DisableKeepAlive: o.DisableKeepAlive,
		UserTimeout:      o.UserTimeout,
		Resolver:         o.Resolver,
	}
}

// validate checks the RPC part of o and returns it with the defaults
// filled in and Handlers copied.
func (o Options) validate() (Options, error) {
	switch {
	case o.HeartbeatInterval < 0:
		return o, opterr.New("rpc", "HeartbeatInterval", o.HeartbeatInterval, "negative")
	case o.HeartbeatTimeout < 0:
		return o, opterr.New("rpc", "HeartbeatTimeout", o.HeartbeatTimeout, "negative")
	case o.MaxAbandoned < 0:
		return o, opterr.New("rpc", "MaxAbandoned", o.MaxAbandoned, "negative")
	}
	for name, h := range o.Handlers {
		if err := checkHandler(name, h); err != nil {
			return o, err
		}
	}
	o.HeartbeatMethod = cmp.Or(o.HeartbeatMethod, HeartbeatMethod)
	o.HeartbeatInterval = cmp.Or(o.HeartbeatInterval, DefaultHeartbeatInterval)
	o.HeartbeatTimeout = cmp.Or(o.HeartbeatTimeout, DefaultHeartbeatTimeout)
	o.MaxAbandoned = cmp.Or(o.MaxAbandoned, DefaultMaxAbandoned)
	o.Handlers = maps.Clone(o.Handlers)
	return o, nil
}
