package dial

import (
	"cmp"
	"errors"
	"net"
	"runtime"
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
	KeepAlive   net.KeepAliveConfig
	UserTimeout time.Duration
	Resolver    *net.Resolver
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
	if err := opterr.Duration(pkg, "UserTimeout", o.UserTimeout); err != nil {
		return o, err
	}
	if err := checkUserTimeout(pkg, o.UserTimeout); err != nil {
		return o, err
	}
	if o.UserTimeout == 0 {
		o.UserTimeout = defaultUserTimeout
	}
	k, err := keepAlive(pkg, o.KeepAlive)
	o.KeepAlive = k
	return o, err
}

// keepAlive checks k and fills in its defaults. Enable is ignored: a
// negative Idle turns keep-alive off (the zero config), as a negative
// net.Dialer.KeepAlive does. The bounds are the kernel's, so that a value
// it would refuse at every attempt is an error here.
func keepAlive(pkg string, k net.KeepAliveConfig) (net.KeepAliveConfig, error) {
	if k.Idle < 0 {
		if k.Interval != 0 || k.Count != 0 {
			return k, opterr.New(pkg, "KeepAlive", nil, "Interval or Count set while Idle is negative (keep-alive off)")
		}
		return net.KeepAliveConfig{}, nil
	}
	for _, f := range []struct {
		name, sockopt string
		d             time.Duration
	}{{"KeepAlive.Idle", "TCP_KEEPIDLE", k.Idle}, {"KeepAlive.Interval", "TCP_KEEPINTVL", k.Interval}} {
		if err := opterr.Duration(pkg, f.name, f.d); err != nil {
			return k, err
		}
		if f.d > maxKeepAliveTime {
			return k, opterr.New(pkg, f.name, f.d, "longer than %v, the most %s takes on %s", maxKeepAliveTime, f.sockopt, runtime.GOOS)
		}
	}
	switch {
	case k.Count < 0:
		return k, opterr.New(pkg, "KeepAlive.Count", k.Count, "negative")
	case k.Count > maxKeepAliveCount:
		return k, opterr.New(pkg, "KeepAlive.Count", k.Count, "more than %d, the most TCP_KEEPCNT takes on %s", maxKeepAliveCount, runtime.GOOS)
	}
	k.Enable = true
	k.Idle = cmp.Or(k.Idle, DefaultKeepAliveIdle)
	k.Interval = cmp.Or(k.Interval, DefaultKeepAliveInterval)
	k.Count = cmp.Or(k.Count, DefaultKeepAliveCount)
	return k, nil
}
