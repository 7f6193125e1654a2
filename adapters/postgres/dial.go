package postgres

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// cleanupGrace bounds pgconn's cleanup of a connection that was dropped
// (a cancel request, the wait for the server's goodbye): milliseconds on a
// healthy path, pgconn's 15s of a held pool slot on a dead one.
const cleanupGrace = time.Second

// dialer bounds and tracks every network connection of one Conn, Listener
// or Pool. Each connection pgx makes is a session, with the cancel
// requests pgconn later dials for it; every dial and every cancel
// request's exchange is bounded by the connect timeout, and once a
// session is dropped (closed by its Conn or Listener, or condemned with
// the whole Pool found lost) its cleanup gets cleanupGrace.
type dialer struct {
	bound time.Duration
	gen   atomic.Uint64 // bumped when a Pool is found lost: older sessions are condemned

	mu    sync.Mutex
	conns map[*trackedConn]struct{}
}

// newDialer returns the dialer of cfg, whose connect timeout is set: cfg's
// DialFunc (pgconn's default when nil) becomes bounded by it.
func newDialer(cfg *pgconn.Config) *dialer {
	d := &dialer{bound: cfg.ConnectTimeout, conns: map[*trackedConn]struct{}{}}
	dial := cfg.DialFunc
	if dial == nil {
		dial = (&net.Dialer{KeepAlive: 5 * time.Minute}).DialContext // pgconn's default
	}
	cfg.DialFunc = bounded(dial, d.bound)
	return d
}

// bounded returns dial with every call bounded by d (0: not bounded).
func bounded(dial pgconn.DialFunc, d time.Duration) pgconn.DialFunc {
	if d <= 0 {
		return dial
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		return dial(ctx, network, addr)
	}
}

// session makes cfg's dials, for one connection to endpoint at (-1: not
// steered), one bounded and tracked session.
func (d *dialer) session(cfg *pgconn.Config, at int) *session {
	s := &session{d: d, gen: d.gen.Load(), dial: cfg.DialFunc, endpoint: at}
	cfg.DialFunc = s.Dial
	after := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, pc *pgconn.PgConn) error {
		s.up.Store(true) // from now on a dial is a cancel request
		if after != nil {
			return after(ctx, pc)
		}
		return nil
	}
	return s
}

// condemn condemns every session made before (a Pool found lost); the
// cleanups under way get cleanupGrace from now.
func (d *dialer) condemn() {
	d.gen.Add(1)
	at := time.Now().Add(cleanupGrace)
	for _, c := range d.tracked() {
		if c.cancel || c.s != nil && c.s.cleaning.Load() {
			c.limit(at)
		}
	}
}

// cutAll closes every tracked connection: pgx's cleanup of them ends.
func (d *dialer) cutAll() {
	for _, c := range d.tracked() {
		_ = c.Close()
	}
}

// working returns how many connections are up and not closed by the
// server, being closed, dropped or condemned (pgxpool counts one it is destroying as acquired).
func (d *dialer) working() int {
	n := 0
	for _, c := range d.tracked() {
		if s := c.s; s != nil && !c.cancel && s.up.Load() && !s.cleaning.Load() && !s.gone.Load() && !s.condemned() {
			n++
		}
	}
	return n
}

func (d *dialer) tracked() []*trackedConn {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*trackedConn, 0, len(d.conns))
	for c := range d.conns {
		out = append(out, c)
	}
	return out
}

// open dials with dial, bounded by bound, and tracks the connection.
func (d *dialer) open(ctx context.Context, dial pgconn.DialFunc, bound time.Duration, network, addr string, s *session, cancel bool) (net.Conn, error) {
	nc, err := bounded(dial, bound)(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	c := &trackedConn{Conn: nc, d: d, s: s, cancel: cancel}
	d.mu.Lock()
	d.conns[c] = struct{}{}
	d.mu.Unlock()
	if cancel && bound > 0 {
		c.limit(time.Now().Add(bound)) // the whole exchange: the request and the server's close
	}
	if cancel && s != nil && s.condemned() { // condemned while it dialed: tracked first, so condemn or this limits it
		c.limit(time.Now().Add(cleanupGrace))
	}
	return c, nil
}

// session is one connection pgx makes and the cancel requests pgconn
// sends for it.
type session struct {
	d        *dialer
	gen      uint64
	dial     pgconn.DialFunc
	endpoint int         // the endpoint it was steered to; -1: not steered
	up       atomic.Bool // connected: a dial from now on is a cancel request
	dialed   atomic.Bool // a first dial was made: one more before up may be a failed startup's cancel request
	gone     atomic.Bool // the server closed the connection (EOF): its backend has ended
	cleaning atomic.Bool // a cancel request was dialed: pgconn is closing the connection
	dropped  atomic.Bool // its Conn or Listener closed it
}

// Dial is the session's DialFunc. Once the connection is up a dial is a
// cancel request (pgconn closing it after an interrupted query, or a
// cancel-request context watcher); a condemned session's gets
// cleanupGrace, and so does the rest of its cleanup.
func (s *session) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if !s.up.Load() {
		if s.dialed.Swap(true) {
			return s.lazy(ctx, network, addr), nil
		}
		return s.d.open(ctx, s.dial, s.d.bound, network, addr, s, false)
	}
	s.cleaning.Store(true)
	if s.gone.Load() {
		return nil, errNoCancel
	}
	bound := s.d.bound
	if s.condemned() {
		bound = cleanupGrace
		if s.d.bound > 0 {
			bound = min(bound, s.d.bound)
		}
		s.limit(time.Now().Add(cleanupGrace))
	}
	return s.d.open(ctx, s.dial, bound, network, addr, s, true)
}

// condemned reports whether the session was dropped or its Pool lost.
func (s *session) condemned() bool { return s.dropped.Load() || s.gen < s.d.gen.Load() }

// drop is called when a Conn or Listener closes the session's connection.
func (s *session) drop() {
	s.dropped.Store(true)
	if s.cleaning.Load() {
		s.limit(time.Now().Add(cleanupGrace))
	}
}

func (s *session) limit(at time.Time) {
	for _, c := range s.d.tracked() {
		if c.s == s {
			c.limit(at)
		}
	}
}

func (s *session) cut() {
	for _, c := range s.d.tracked() {
		if c.s == s {
			_ = c.Close()
		}
	}
}

// sessionOf returns the session of pc's connection, or nil.
func sessionOf(pc *pgconn.PgConn) *session {
	nc := pc.Conn()
	for nc != nil {
		switch c := nc.(type) {
		case *trackedConn:
			return c.s
		case *lazyConn:
			nc = c.dialedConn()
		case interface{ NetConn() net.Conn }: // *tls.Conn
			nc = c.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// trackedConn is a connection a dialer made. Once limited, no deadline
// set on it (pgconn's 15s for its cleanup) is later than the limit.
type trackedConn struct {
	net.Conn
	d      *dialer
	s      *session                  // nil outside a session
	cancel bool                      // a cancel request's connection
	until  atomic.Pointer[time.Time] // the limit, with its monotonic reading; nil: none
	once   sync.Once
}

func (c *trackedConn) limit(at time.Time) {
	for {
		old := c.until.Load()
		if old != nil && !old.After(at) {
			return
		}
		if c.until.CompareAndSwap(old, &at) {
			_ = c.Conn.SetDeadline(at)
			return
		}
	}
}

func (c *trackedConn) clamp(t time.Time) time.Time {
	lim := c.until.Load()
	if lim != nil && (t.IsZero() || t.After(*lim)) {
		return *lim
	}
	return t
}

// Read notes a server that closed the session's connection.
func (c *trackedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err == io.EOF && c.s != nil && !c.cancel {
		c.s.gone.Store(true)
	}
	return n, err
}

func (c *trackedConn) SetDeadline(t time.Time) error      { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *trackedConn) SetReadDeadline(t time.Time) error  { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *trackedConn) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.clamp(t)) }

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.d.mu.Lock()
		delete(c.d.conns, c)
		c.d.mu.Unlock()
	})
	return c.Conn.Close()
}
