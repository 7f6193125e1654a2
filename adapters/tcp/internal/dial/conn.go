package dial

import (
	"context"
	"errors"
	"io"
	"net"
	"time"
)

// Close closes conn. A TLS connection is closed without a close_notify
// alert: the supervisor closes connections it considers broken, and a
// close_notify written to a stalled peer could block for seconds. A conn
// the program closed already is not an error.
func Close(conn net.Conn) error {
	if tc, ok := conn.(layered); ok {
		conn = tc.NetConn()
	}
	if err := conn.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// DropOnClose returns conn for a codec whose Close must not block (rpc2's):
// a TLS connection is closed without a close_notify alert, which could
// block for seconds on a stalled peer.
func DropOnClose(conn net.Conn) io.ReadWriteCloser {
	if tc, ok := conn.(layered); ok {
		return rawClose{Conn: conn, raw: tc.NetConn()}
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

// WithDeadline runs f on conn and interrupts f's I/O when ctx ends (its
// deadline in the past), so that a Handshake that ignores ctx still ends
// with the attempt; the attempt's error then says it timed out. The
// deadline is cleared afterwards.
func WithDeadline(ctx context.Context, conn net.Conn, f func(context.Context, net.Conn) error) error {
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
