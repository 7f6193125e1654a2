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
	// DefaultUserTimeout is Idle + Interval*Count: a peer that stops
	// acknowledging data is given up on after as long as an idle peer that
	// stops answering keep-alive probes.
	DefaultUserTimeout = dial.DefaultUserTimeout
)

// Options configures a plain TCP (or TLS) supervisor; see New. The zero
// value of every field means its documented default.
type Options struct {
	// TLS, when set, makes every connection a TLS client connection; the
	// handshake is part of the attempt. It is cloned at construction; an
	// empty ServerName is taken from the address.
	TLS *tls.Config
	// KeepAlive configures TCP keep-alive probes, which find a peer that
	// vanished while the connection was idle. The zero value means Enable,
	// Idle 5s, Interval 3s, Count 3 (a silent peer is found within 14s). With Enable set, zero fields take those
	// defaults. Setting Idle, Interval or Count without Enable is an error;
	// turn keep-alive off with DisableKeepAlive.
	KeepAlive        net.KeepAliveConfig
	DisableKeepAlive bool
	// UserTimeout is TCP_USER_TIMEOUT: how long sent data may stay
	// unacknowledged (or the peer's window stay closed) before the kernel
	// drops the connection and the blocked Write fails. Keep-alive does not
	// fire while data is outstanding, so this is what finds a peer that
	// vanished mid-write. 0 means 15s on Linux and nothing elsewhere; a
	// non-zero value on another OS is an error at construction.
	UserTimeout time.Duration
	// Resolver resolves the address's host on every attempt; nil means
	// net.DefaultResolver.
	Resolver *net.Resolver
	// Handshake, when set, runs on every new connection inside the attempt
	// (ConnectTimeout), before Supervisor.OnConnect: a greeting, an
	// authentication exchange, a first ping. Without it a connection counts
	// as made once the TCP (and TLS) handshake completed — through a proxy
	// or load balancer that is the proxy's accept, not the server's answer.
	// conn's I/O is interrupted when ctx ends (its deadline is set in the
	// past), so a Handshake that only reads and writes still ends with the
	// attempt.
	Handshake func(ctx context.Context, conn net.Conn) error
	// Replicas are more addresses (host:port) of the same service. The
	// supervisor dials address first; after a failed attempt or a lost
	// connection it goes to the next replica at once (within the
	// supervisor's FailoverSpread), and backs off only when every one
	// failed. Status.Endpoint says which is in use.
	Replicas []string
	// Supervisor configures the supervisor; its Name defaults to the
	// address, and its Classify, if set, runs after this package's Classify.
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
