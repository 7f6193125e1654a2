package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// errNoCancel fails a cancel request that would cancel nothing: for a
// session whose server closed it, or whose startup failed (process 0).
var errNoCancel = errors.New("postgres: no cancel request: nothing to cancel")

// cancelCode opens a CancelRequest message, after its length.
const cancelCode = 80877102

// lazyConn is a session's dial after its first, before it is up: the
// startup of pgx's next try (a fallback), or the cancel request pgconn
// sends when a startup failed, which carries process 0 and cancels
// nothing. It dials at the first Write, unless that is the cancel request:
// during an outage that request would double every attempt's dials.
type lazyConn struct {
	s             *session
	ctx           context.Context
	network, addr string

	fast     atomic.Pointer[net.Conn] // conn, read without the lock
	mu       sync.Mutex
	conn     net.Conn // once dialed
	err      error    // the dial's, or net.ErrClosed after Close
	deadline [2]time.Time
}

func (s *session) lazy(ctx context.Context, network, addr string) *lazyConn {
	return &lazyConn{s: s, ctx: ctx, network: network, addr: addr}
}

// get dials unless done already; first is the first bytes to be written.
func (l *lazyConn) get(first []byte) (net.Conn, error) {
	if c := l.fast.Load(); c != nil {
		return *c, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil || l.err != nil {
		return l.conn, l.err
	}
	if len(first) >= 8 && binary.BigEndian.Uint32(first[4:8]) == cancelCode {
		l.err = errNoCancel
		return nil, l.err
	}
	c, err := l.s.d.open(l.ctx, l.s.dial, l.s.d.bound, l.network, l.addr, l.s, false)
	if err != nil {
		l.err = err
		return nil, err
	}
	l.conn = c
	l.fast.Store(&c)
	if !l.deadline[0].IsZero() {
		_ = c.SetReadDeadline(l.deadline[0])
	}
	if !l.deadline[1].IsZero() {
		_ = c.SetWriteDeadline(l.deadline[1])
	}
	return c, nil
}

func (l *lazyConn) Write(b []byte) (int, error) {
	c, err := l.get(b)
	if err != nil {
		return 0, err
	}
	return c.Write(b)
}

func (l *lazyConn) Read(b []byte) (int, error) {
	c, err := l.get(nil)
	if err != nil {
		return 0, err
	}
	return c.Read(b)
}

func (l *lazyConn) Close() error {
	l.mu.Lock()
	c := l.conn
	if c == nil && l.err == nil {
		l.err = net.ErrClosed
	}
	l.mu.Unlock()
	if c != nil {
		return c.Close()
	}
	return nil
}

// deadlines sets the read (0) and write (1) deadlines at, on the
// connection once dialed, kept until then.
func (l *lazyConn) deadlines(at time.Time, which ...int) error {
	l.mu.Lock()
	c := l.conn
	for _, i := range which {
		l.deadline[i] = at
	}
	l.mu.Unlock()
	if c == nil {
		return nil
	}
	if len(which) == 2 {
		return c.SetDeadline(at)
	}
	if which[0] == 0 {
		return c.SetReadDeadline(at)
	}
	return c.SetWriteDeadline(at)
}

func (l *lazyConn) SetDeadline(t time.Time) error      { return l.deadlines(t, 0, 1) }
func (l *lazyConn) SetReadDeadline(t time.Time) error  { return l.deadlines(t, 0) }
func (l *lazyConn) SetWriteDeadline(t time.Time) error { return l.deadlines(t, 1) }

func (l *lazyConn) LocalAddr() net.Addr {
	if c := l.dialedConn(); c != nil {
		return c.LocalAddr()
	}
	return dialAddr{l.network, ""}
}

// RemoteAddr is where it dials, before it has: pgconn's cancel request
// dials it.
func (l *lazyConn) RemoteAddr() net.Addr {
	if c := l.dialedConn(); c != nil {
		return c.RemoteAddr()
	}
	return dialAddr{l.network, l.addr}
}

func (l *lazyConn) dialedConn() net.Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conn
}

type dialAddr struct{ network, addr string }

func (a dialAddr) Network() string { return a.network }
func (a dialAddr) String() string  { return a.addr }
