package tcp

import (
	"cmp"
	"fmt"
	"maps"
	"time"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/supervisor"
)

// Defaults of RPCOptions.
const (
	DefaultHeartbeatInterval = 10 * time.Second
	DefaultHeartbeatTimeout  = 5 * time.Second
	DefaultMaxAbandoned      = 64
)

// RPCOptions configures an RPC supervisor; see NewRPC.
type RPCOptions struct {
	DialOptions
	// Handlers are the methods the server may call on the client, by name;
	// each is a func(*rpc2.Client, Args, *Reply) error as rpc2.Client.Handle
	// takes. They are registered on every new client, before it reads.
	// rpc2 runs each request on its own goroutine, which may outlive the
	// connection for as long as the handler runs: a long handler should
	// watch its client's DisconnectNotify.
	Handlers map[string]any
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
	// Supervisor configures the supervisor; its Classify, if set, runs after
	// this package's Classify.
	Supervisor supervisor.Options[*rpc2.Client]
}

func (o *RPCOptions) validate() error {
	if err := o.DialOptions.validate(); err != nil {
		return err
	}
	switch {
	case o.HeartbeatInterval < 0:
		return fmt.Errorf("tcp: HeartbeatInterval %v is negative", o.HeartbeatInterval)
	case o.HeartbeatTimeout < 0:
		return fmt.Errorf("tcp: HeartbeatTimeout %v is negative", o.HeartbeatTimeout)
	case o.MaxAbandoned < 0:
		return fmt.Errorf("tcp: MaxAbandoned %d is negative", o.MaxAbandoned)
	}
	o.HeartbeatMethod = cmp.Or(o.HeartbeatMethod, HeartbeatMethod)
	o.HeartbeatInterval = cmp.Or(o.HeartbeatInterval, DefaultHeartbeatInterval)
	o.HeartbeatTimeout = cmp.Or(o.HeartbeatTimeout, DefaultHeartbeatTimeout)
	o.MaxAbandoned = cmp.Or(o.MaxAbandoned, DefaultMaxAbandoned)
	o.Handlers = maps.Clone(o.Handlers)
	for name, h := range o.Handlers {
		if err := checkHandler(name, h); err != nil {
			return err
		}
	}
	return nil
}
