package tcp

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// dialer makes one connection per attempt with the options' keep-alive,
// TCP_USER_TIMEOUT and TLS settings. It is safe for concurrent use.
type dialer struct {
	addr string
	net  *net.Dialer
	tls  *tls.Dialer // nil: plain TCP
}

// newDialer takes validated options.
func newDialer(o DialOptions) *dialer {
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
	d := &dialer{addr: o.Address, net: nd}
	if o.TLS != nil {
		d.tls = &tls.Dialer{NetDialer: nd, Config: o.TLS}
	}
	return d
}

// dial connects (and completes the TLS handshake) within ctx.
func (d *dialer) dial(ctx context.Context) (net.Conn, error) {
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

// dropOnClose returns conn for rpc2's codec, whose Close must not block:
// a TLS connection is closed without a close_notify alert, which could
// block for seconds on a stalled peer.
func dropOnClose(conn net.Conn) io.ReadWriteCloser {
	if tc, ok := conn.(*tls.Conn); ok {
		return rawClose{Conn: tc, raw: tc.NetConn()}
	}
	return conn
}

type rawClose struct {
	net.Conn
	raw net.Conn
}

func (c rawClose) Close() error { return c.raw.Close() }

// aLongTimeAgo is a deadline in the past: it interrupts blocked I/O.
var aLongTimeAgo = time.Unix(1, 0)

// withDeadline runs f on conn and interrupts f's I/O when ctx ends (its
// deadline in the past), so that a Handshake that ignores ctx still ends
// with the attempt; the attempt's error then says it timed out. The
// deadline is cleared afterwards.
func withDeadline(ctx context.Context, conn net.Conn, f func(context.Context, net.Conn) error) error {
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(aLongTimeAgo) })
	err := f(ctx, conn)
	if !stop() {
		// ctx ended: the deadline may be in the past; the attempt failed.
		if err == nil {
			err = context.Cause(ctx)
		}
		return err
	}
	if err != nil {
		return err
	}
	return conn.SetDeadline(time.Time{})
}
