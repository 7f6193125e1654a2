package dial

import (
	"context"
	"fmt"
	"net"
	"syscall"
)

// Dialer makes one connection per attempt with the options' keep-alive and
// TCP_USER_TIMEOUT, and its Layer. It is safe for concurrent use.
type Dialer struct {
	addrs []string // the address, then the replicas: the endpoints
	net   *net.Dialer
	layer Layer
}

// New checks address, replicas and o, reporting a bad one as pkg's error
// (wrapping supervisor.ErrInvalidOptions), and returns a Dialer of
// address and its replicas, the endpoints 0, 1, ..., whose connections
// layer, if set, makes.
func New(pkg, address string, replicas []string, o Options, layer Layer) (*Dialer, error) {
	if err := checkAddress(pkg, "address", address); err != nil {
		return nil, err
	}
	for i, r := range replicas {
		if err := checkAddress(pkg, fmt.Sprintf("Replicas[%d]", i), r); err != nil {
			return nil, err
		}
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
	if !o.KeepAlive.Enable {
		nd.KeepAlive = -1
	}
	d := &Dialer{addrs: append([]string{address}, replicas...), net: nd, layer: layer}
	return d, nil
}

// Addrs returns the addresses it dials: the endpoints.
func (d *Dialer) Addrs() []string { return d.addrs }

// Dial connects to endpoint i (and runs the Layer, TLS's handshake) within
// ctx.
func (d *Dialer) Dial(ctx context.Context, i int) (net.Conn, error) {
	addr := d.addrs[i]
	raw, err := d.net.DialContext(ctx, "tcp", addr)
	if err != nil || d.layer == nil {
		return raw, err
	}
	ok := false
	defer func() {
		if !ok { // the Layer failed or panicked (a callback of the program's tls.Config)
			_ = raw.Close()
		}
	}()
	c, err := d.layer(ctx, raw, addr)
	ok = err == nil
	return c, err
}
