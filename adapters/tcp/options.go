package tcp

import (
	"context"
	"crypto/tls"
	"net"
	"time"

	"github.com/redial-go/redial/adapters/tcp/internal/dial"
	"github.com/redial-go/redial/supervisor"
)

// Defaults of the dial options (Options; rpc.Options has the same).
const (
	DefaultKeepAliveIdle     = dial.DefaultKeepAliveIdle
	DefaultKeepAliveInterval = dial.DefaultKeepAliveInterval
	DefaultKeepAliveCount    = dial.DefaultKeepAliveCount
	DefaultUserTimeout       = dial.DefaultUserTimeout // Idle + Interval*Count
)

// Options configures a plain TCP (or TLS) supervisor; see New. The zero
// value of every field means its documented default.
type Options struct {
	// TLS, when set, makes every connection a TLS client connection; an
	// empty ServerName is taken from the address.
	TLS *tls.Config
	// KeepAlive configures TCP keep-alive. The zero value means Enable,
	// Idle 5s, Interval 3s, Count 3; with Enable set, zero fields take
	// those. Setting a field without Enable, or with DisableKeepAlive, is
	// an error.
	KeepAlive        net.KeepAliveConfig
	DisableKeepAlive bool
	// UserTimeout is TCP_USER_TIMEOUT: how long sent data may stay
	// unacknowledged before the kernel drops the connection. 0 means 15s
	// on Linux and none elsewhere, where setting it is an error.
	UserTimeout time.Duration
	// Resolver resolves the address's host on every attempt; nil means
	// net.DefaultResolver.
	Resolver *net.Resolver
	// Handshake, when set, runs on every new connection inside the
	// attempt, before Supervisor.OnConnect: a greeting, a first ping. The
	// connection's I/O is interrupted when ctx ends.
	Handshake func(ctx context.Context, conn net.Conn) error
	// Replicas are more addresses (host:port) of the same service: after a
	// failure the next is tried at once (within the supervisor's
	// FailoverSpread), the backoff waited only when every one failed.
	Replicas []string
	// Supervisor configures the supervisor; its Name defaults to the
	// address, and its Classify runs after this package's.
	Supervisor supervisor.Options[net.Conn]
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
