package tcp

import (
	"context"
	"net"
	"time"

	"github.com/redial-go/redial/adapters/tcp/internal/dial"
	"github.com/redial-go/redial/supervisor"
)

// Defaults of the dial options, the same in tcptls and rpc.
const (
	DefaultKeepAliveIdle     = dial.DefaultKeepAliveIdle
	DefaultKeepAliveInterval = dial.DefaultKeepAliveInterval
	DefaultKeepAliveCount    = dial.DefaultKeepAliveCount
	DefaultUserTimeout       = dial.DefaultUserTimeout // about Idle + Interval*Count
)

// Options configures New; a zero field means its default.
type Options struct {
	// KeepAlive's zero fields mean Idle 5s, Interval 3s, Count 3; Enable is ignored.
	// A negative Idle turns keep-alive off, as net.Dialer's negative KeepAlive does.
	KeepAlive   net.KeepAliveConfig
	UserTimeout time.Duration // TCP_USER_TIMEOUT, how long sent data may go unacked: 0 means 15s, at most 24h (Linux only)
	Resolver    *net.Resolver // resolves the host on every attempt; nil means net.DefaultResolver
	// Handshake, if set, runs on every new connection inside the attempt,
	// before OnConnect (a greeting); ctx ending interrupts its I/O.
	Handshake  func(ctx context.Context, conn net.Conn) error
	OnConnect  func(ctx context.Context, conn net.Conn) error // after every connect, before Connected
	Replicas   []string                                       // more addresses of the same service, failed over to at once
	Supervisor supervisor.Settings                            // Name defaults to the address; Classify runs after the adapter's
}

func (o Options) dialOptions() dial.Options {
	return dial.Options{
		KeepAlive:   o.KeepAlive,
		UserTimeout: o.UserTimeout,
		Resolver:    o.Resolver,
	}
}
