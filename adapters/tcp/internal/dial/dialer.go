package dial

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"syscall"
)

// Dialer makes one connection per attempt with the options' keep-alive,
// TCP_USER_TIMEOUT and TLS settings. It is safe for concurrent use.
type Dialer struct {
	addr string
	net  *net.Dialer
	tls  *tls.Dialer // nil: plain TCP
}

// New checks address and o, reporting a bad one as pkg's error (wrapping
// supervisor.ErrInvalidOptions), and returns a Dialer of address. o is
// copied: its TLS config is cloned.
func New(pkg, address string, o Options) (*Dialer, error) {
	if err := checkAddress(pkg, address); err != nil {
		return nil, err
	}
	o, err := o.validate(pkg)
	if err != nil {
		return nil, err
	}
	ut := o.UserTimeout
	nd := &net.Dialer{
		Resolver:        o.Resolver,
		KeepAliveConfig: o.KeepAlive,
		Control: func(_, _ string, c syscall.RawConn) error {
			return setUserTimeout(c, ut)
		},
	}
	if o.DisableKeepAlive {
		nd.KeepAlive = -1
	}
	d := &Dialer{addr: address, net: nd}
	if o.TLS != nil {
		d.tls = &tls.Dialer{NetDialer: nd, Config: o.TLS}
	}
	return d, nil
}

// Addr returns the address it dials.
func (d *Dialer) Addr() string { return d.addr }

// Dial connects (and completes the TLS handshake) within ctx.
func (d *Dialer) Dial(ctx context.Context) (net.Conn, error) {
	if d.tls == nil {
		return d.net.DialContext(ctx, "tcp", d.addr)
	}
	c, err := d.tls.DialContext(ctx, "tcp", d.addr)
	if err != nil {
		if _, ok := err.(*net.OpError); !ok {
			err = fmt.Errorf("tls handshake with %s: %w", d.addr, err)
		}
		return nil, err
	}
	return c, nil
}
