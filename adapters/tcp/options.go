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
	DefaultUserTimeout       = dial.DefaultUserTimeout // about Idle + Interval*Count
)

// Options configures New; a zero field means its default.
type Options struct {
	// TLS, if set, makes every connection TLS; an empty ServerName is the
	// address's host.
	TLS *tls.Config
	// KeepAlive configures TCP keep-alive; zero means Enable, Idle 5s,
	// Interval 3s, Count 3, and with Enable zero fields take those. A field
	// set without Enable, or with DisableKeepAlive, is an error.
	KeepAlive        net.KeepAliveConfig
	DisableKeepAlive bool
	// UserTimeout is TCP_USER_TIMEOUT, how long sent data may go unacked:
	// 0 means 15s on Linux; elsewhere it cannot be set.
	UserTimeout time.Duration
	Resolver    *net.Resolver // resolves the host on every attempt; nil means net.DefaultResolver
	// Handshake, if set, runs on every new connection inside the attempt,
	// before OnConnect (a greeting); ctx ending interrupts its I/O.
	Handshake func(ctx context.Context, conn net.Conn) error
	Replicas  []string // more addresses of the same service, failed over to at once
	// Supervisor configures the supervisor; Name defaults to the address,
	// and Classify runs after this package's.
	Supervisor supervisor.Options[net.Conn]
}

func (o Options) dialOptions() dial.Options {
	return dial.Options{
		TLS:              o.TLS,
		KeepAlive:        o.KeepAlive,
		DisableKeepAlive: o.DisableKeepAlive,
		UserTimeout:      o.UserTimeout,
		Resolver:         o.Resolver,
	}
}
