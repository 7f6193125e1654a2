package postgres

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// cleanupGrace is how long the cleanup of a connection found dead may
// take once its Conn, Listener or Pool has dropped it: pgconn's cancel
// request for the query it interrupted and the wait for the server's
// goodbye, which on a healthy path take milliseconds and on a dead one
// would hold the connection (and a pool slot) for 15s.
const cleanupGrace = time.Second

// dialer bounds and tracks every network connection of one Conn, Listener
// or Pool. Every dial is bounded by the connect timeout, and so is a
// cancel request's whole exchange. Each connection pgx makes is a session:
// the connection itself and the cancel requests pgconn sends for it later
// (when a query is interrupted, pgconn closes the connection and sends a
// cancel request on a new one, then waits up to 15s for the server to say
// goodbye). Once the connection is dropped — a Conn or Listener closing
// it, a Pool found lost, which condemns every session made before — that
// cleanup gets cleanupGrace at most, so a dead connection holds no pool
// slot for long.
type dialer struct {
	bound time.Duration
	gen   atomic.Uint64 // bumped when a Pool is found lost: older sessions are condemned

	mu    sync.Mutex
	conns map[*trackedConn]struct{}
}

// newDialer returns the dialer of cfg, a template config whose connect
// timeout is set: cfg's DialFunc (pgconn's default when nil) becomes
// bounded by it.
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

// session prepares cfg, a copy of the template for one connection to
// endpoint at (-1: not steered), after BeforeConnect: its dials (with the
// template's DialFunc, or one BeforeConnect set) are bounded and tracked
// as one session.
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

// condemn is called when a Pool is found lost: every session made before
// is condemned, and the cleanups already under way (cancel requests, and
// connections pgconn is closing) get cleanupGrace from now.
func (d *dialer) condemn() {
	d.gen.Add(1)
	at := time.Now().Add(cleanupGrace)
	for _, c := range d.tracked() {
		if c.cancel || c.s != nil && c.s.cleaning.Load() {
			c.limit(at)
		}
	}
}

// cutAll closes every tracked connection: their reads and writes fail at
// once, so pgx's cleanup of them ends.
func (d *dialer) cutAll() {
	for _, c := range d.tracked() {
		_ = c.Close()
	}
}

// working returns how many connections d made are up and in use or
// ready for use: not being closed by pgconn (it dialed a cancel request),
// not dropped, not condemned. pgxpool counts a connection it is
// destroying as acquired until its cleanup ends; this does not.
func (d *dialer) working() int {
	n := 0
	for _, c := range d.tracked() {
		if s := c.s; s != nil && !c.cancel && s.up.Load() && !s.cleaning.Load() && !s.condemned() {
			n++
		}
	}
	return n
}

// tracked returns the connections open now.
func (d *dialer) tracked() []*trackedConn {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*trackedConn, 0, len(d.conns))
	for c := range d.conns {
		out = append(out, c)
	}
	return out
}

// open dials with dial, bounded by bound (0: not bounded), and tracks the
// connection.
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
	if cancel && s != nil && s.condemned() {
		// Condemned while it dialed: condemn, which looks only at the
		// connections tracked, did not see this one. (It is tracked
		// before this check, and condemn bumps gen before it looks, so
		// one of the two limits it.)
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
	cleaning atomic.Bool // a cancel request was dialed: pgconn is closing the connection
	dropped  atomic.Bool // its Conn or Listener closed it
}

// Dial is the session's DialFunc. A dial once the connection is up is a
// cancel request: pgconn closing a connection after an interrupted query
// or an error (or a cancel-request context watcher, which a program may
// configure). For a condemned session it gets cleanupGrace, and so does
// the rest of the connection's cleanup.
func (s *session) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if !s.up.Load() {
		return s.d.open(ctx, s.dial, s.d.bound, network, addr, s, false)
	}
	s.cleaning.Store(true)
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

// condemned reports whether the session's connection was dropped: its
// Conn or Listener closed it, or its Pool was found lost since it was
// made.
func (s *session) condemned() bool { return s.dropped.Load() || s.gen < s.d.gen.Load() }

// drop is called when a Conn or Listener closes the session's connection:
// a cleanup under way, or one that begins later, gets cleanupGrace.
func (s *session) drop() {
	s.dropped.Store(true)
	if s.cleaning.Load() {
		s.limit(time.Now().Add(cleanupGrace))
	}
}

// limit sets a deadline of at, at the latest, on the session's connections.
func (s *session) limit(at time.Time) {
	for _, c := range s.d.tracked() {
		if c.s == s {
			c.limit(at)
		}
	}
}

// cut closes the session's connections.
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
	s      *session // nil outside a session
	cancel bool     // a cancel request's connection
	until  atomic.Int64
	once   sync.Once
}

// limit makes at the latest deadline of c, from now on.
func (c *trackedConn) limit(at time.Time) {
	for {
		old := c.until.Load()
		if old != 0 && old <= at.UnixNano() {
			return
		}
		if c.until.CompareAndSwap(old, at.UnixNano()) {
			_ = c.Conn.SetDeadline(at)
			return
		}
	}
}

// clamp returns t, or the limit when there is one and t is later (or no
// deadline).
func (c *trackedConn) clamp(t time.Time) time.Time {
	u := c.until.Load()
	if u == 0 {
		return t
	}
	if lim := time.Unix(0, u); t.IsZero() || t.After(lim) {
		return lim
	}
	return t
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
