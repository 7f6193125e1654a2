package dial

import (
	"errors"
	"net"
	"time"

	"github.com/redial-go/redial/internal/opterr"
)

// Defaults of Options.
const (
	DefaultKeepAliveIdle     = 5 * time.Second
	DefaultKeepAliveInterval = 3 * time.Second
	DefaultKeepAliveCount    = 3
	// DefaultUserTimeout is about Idle + Interval*Count (14s): a peer that
	// stops acknowledging data is given up on about as soon as an idle
	// peer that stops answering keep-alive probes.
	DefaultUserTimeout = 15 * time.Second
)

// Options are the dial options of tcp.Options and rpc.Options, which
// document them; both have every field, with the same name and type (TLS,
// where there is one, is a Layer).
type Options struct {
	KeepAlive        net.KeepAliveConfig
	DisableKeepAlive bool
	UserTimeout      time.Duration
	Resolver         *net.Resolver
}

// checkAddress reports a bad address as pkg's error about field (the
// "address" argument, or a Replicas entry).
func checkAddress(pkg, field, address string) error {
	if address == "" {
		return opterr.New(pkg, field, nil, "empty")
	}
	if _, _, err := net.SplitHostPort(address); err != nil {
		problem := err.Error()
		var ae *net.AddrError
		if errors.As(err, &ae) {
			problem = ae.Err
		}
		return opterr.New(pkg, field, address, "%s", problem)
	}
	return nil
}

// validate checks o, reporting errors as pkg's, and returns it with the
// defaults filled in.
func (o Options) validate(pkg string) (Options, error) {
	if o.UserTimeout < 0 {
		return o, opterr.New(pkg, "UserTimeout", o.UserTimeout, "negative")
	}
	if err := checkUserTimeout(pkg, o.UserTimeout); err != nil {
		return o, err
	}
	if o.UserTimeout == 0 {
		o.UserTimeout = defaultUserTimeout
	}
	k, err := keepAlive(pkg, o.KeepAlive, o.DisableKeepAlive)
	o.KeepAlive = k
	return o, err
}

// keepAlive checks k and fills in its defaults unless disabled.
func keepAlive(pkg string, k net.KeepAliveConfig, disabled bool) (net.KeepAliveConfig, error) {
	switch {
	case k.Idle < 0:
		return k, opterr.New(pkg, "KeepAlive.Idle", k.Idle, "negative")
	case k.Interval < 0:
		return k, opterr.New(pkg, "KeepAlive.Interval", k.Interval, "negative")
	case k.Count < 0:
		return k, opterr.New(pkg, "KeepAlive.Count", k.Count, "negative")
	case disabled && k != (net.KeepAliveConfig{}):
		return k, opterr.New(pkg, "KeepAlive", nil, "set while DisableKeepAlive is true")
	case !k.Enable && k != (net.KeepAliveConfig{}):
		return k, opterr.New(pkg, "KeepAlive", nil, "Idle, Interval or Count set without Enable")
	case disabled:
		return k, nil
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
	return k, nil
}
