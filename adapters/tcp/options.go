package tcp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/redial-go/redial/supervisor"
)

// Defaults of DialOptions.
const (
	DefaultKeepAliveIdle     = 15 * time.Second
	DefaultKeepAliveInterval = 5 * time.Second
	DefaultKeepAliveCount    = 3
	// DefaultUserTimeout is Idle + Interval*Count: a peer that stops
	// acknowledging data is given up on after as long as an idle peer that
	// stops answering keep-alive probes.
	DefaultUserTimeout = 30 * time.Second
)

// DialOptions says how to reach the server. The zero value of every field
// but Address means its documented default.
type DialOptions struct {
	// Address is host:port; required. The host may be a name (resolved on
	// every attempt) or an IP address.
	Address string
	// TLS, when set, makes every connection a TLS client connection; the
	// handshake is part of the attempt. It is cloned at construction; an
	// empty ServerName is taken from Address.
	TLS *tls.Config
	// KeepAlive configures TCP keep-alive probes, which find a peer that
	// vanished while the connection was idle. The zero value means Enable,
	// Idle 15s, Interval 5s, Count 3. With Enable set, zero fields take those
	// defaults. Setting Idle, Interval or Count without Enable is an error;
	// turn keep-alive off with DisableKeepAlive.
	KeepAlive        net.KeepAliveConfig
	DisableKeepAlive bool
	// UserTimeout is TCP_USER_TIMEOUT: how long sent data may stay
	// unacknowledged (or the peer's window stay closed) before the kernel
	// drops the connection and the blocked Write fails. Keep-alive does not
	// fire while data is outstanding, so this is what finds a peer that
	// vanished mid-write. 0 means 30s on Linux and nothing elsewhere; a
	// non-zero value on another OS is an error at construction.
	UserTimeout time.Duration
	// Resolver resolves Address's host; nil means net.DefaultResolver.
	Resolver *net.Resolver
}

// Options configures a plain TCP (or TLS) supervisor; see New.
type Options struct {
	DialOptions
	// Handshake, when set, runs on every new connection inside the attempt
	// (ConnectTimeout), before Supervisor.OnConnect: a greeting, an
	// authentication exchange, a first ping. Without it a connection counts
	// as made once the TCP (and TLS) handshake completed — through a proxy
	// or load balancer that is the proxy's accept, not the server's answer.
	// conn's I/O is interrupted when ctx ends (its deadline is set in the
	// past), so a Handshake that only reads and writes still ends with the
	// attempt.
	Handshake func(ctx context.Context, conn net.Conn) error
	// Supervisor configures the supervisor; its Classify, if set, runs after
	// this package's Classify.
	Supervisor supervisor.Options[net.Conn]
}

// validate checks o and fills in the defaults.
func (o *DialOptions) validate() error {
	if o.Address == "" {
		return errors.New("tcp: Address is empty")
	}
	if _, _, err := net.SplitHostPort(o.Address); err != nil {
		return fmt.Errorf("tcp: Address %q: %w", o.Address, err)
	}
	if o.UserTimeout < 0 {
		return fmt.Errorf("tcp: UserTimeout %v is negative", o.UserTimeout)
	}
	if err := checkUserTimeout(o.UserTimeout); err != nil {
		return err
	}
	if o.UserTimeout == 0 {
		o.UserTimeout = defaultUserTimeout
	}
	if o.TLS != nil {
		o.TLS = o.TLS.Clone()
	}
	return o.validateKeepAlive()
}

func (o *DialOptions) validateKeepAlive() error {
	k := &o.KeepAlive
	switch {
	case k.Idle < 0:
		return fmt.Errorf("tcp: KeepAlive.Idle %v is negative", k.Idle)
	case k.Interval < 0:
		return fmt.Errorf("tcp: KeepAlive.Interval %v is negative", k.Interval)
	case k.Count < 0:
		return fmt.Errorf("tcp: KeepAlive.Count %d is negative", k.Count)
	case o.DisableKeepAlive && *k != (net.KeepAliveConfig{}):
		return errors.New("tcp: KeepAlive is set but DisableKeepAlive is true")
	case !k.Enable && *k != (net.KeepAliveConfig{}):
		return errors.New("tcp: KeepAlive.Idle, Interval or Count set without KeepAlive.Enable")
	case o.DisableKeepAlive:
		return nil
	}
	k.Enable = true
	if k.Idle == 0 {
		k.Idle = DefaultKeepAliveIdle
	}
	if k.Interval == 0 {
		k.Interval = DefaultKeepAliveInterval
	}
	if k.Count == 0 {
		k.Count = DefaultKeepAliveCount
	}
	return nil
}
