package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// poolConnector is the Pool's Connector and Watcher. An attempt is a
// ping; a lost pool is reset, not closed, so the same *pgxpool.Pool
// serves the program across outages. pool is written once, by the first
// Connect on the supervisor's goroutine, before made is closed; the other
// fields are set by NewPool.
type poolConnector struct {
	cfg               *pgxpool.Config
	t                 target
	interval, timeout time.Duration
	dials             *dialer       // every connection pool dialed: bounded, and cut when it is lost or closed
	pool              *pgxpool.Pool // made by the first Connect
	made              chan struct{} // closed once pool is set
	suspect           chan struct{} // capacity 1: a caller gave up on a query; Watch pings soon
	current           atomic.Int32  // with several hosts, the endpoint every dial of the pool goes to
}

// newPoolConnector returns the connector of cfg: its dials are bounded
// (see PoolOptions.PingTimeout) and tracked, go to the current endpoint
// when the DSN has several hosts, and every connection gets
// o.BeforeConnect's credentials, after what a pgxpool BeforeConnect set by
// Configure did.
func newPoolConnector(cfg *pgxpool.Config, t target, o PoolOptions) *poolConnector {
	defaultConnectTimeout(&cfg.ConnConfig.Config, min(connectTimeout(o.Supervisor), o.PingTimeout))
	c := &poolConnector{cfg: cfg, t: t, interval: o.PingInterval, timeout: o.PingTimeout,
		dials: newDialer(&cfg.ConnConfig.Config), made: make(chan struct{}), suspect: make(chan struct{}, 1)}
	before, configured := o.BeforeConnect, cfg.BeforeConnect
	cfg.BeforeConnect = func(ctx context.Context, cc *pgx.ConnConfig) error {
		at := -1
		if t.several() {
			at = int(c.current.Load())
			t.hosts[at].steer(&cc.Config)
		}
		if configured != nil {
			if err := configured(ctx, cc); err != nil {
				t.secrets.add(cc.Password)
				return &hookError{err}
			}
		}
		return t.prepare(ctx, &cc.Config, at, before, c.dials)
	}
	if t.several() {
		c.keepCurrent(cfg)
	}
	return c
}

// keepCurrent makes the pool hand out only connections to the current
// endpoint: one dialed while the attempt that switched endpoints ran (its
// BeforeConnect came first) is destroyed when acquired, and the acquire
// takes or dials another. Then the PrepareConn (or BeforeAcquire) that
// Configure set, if any, decides.
func (c *poolConnector) keepCurrent(cfg *pgxpool.Config) {
	prepare, acquire := cfg.PrepareConn, cfg.BeforeAcquire
	cfg.PrepareConn = func(ctx context.Context, conn *pgx.Conn) (bool, error) {
		if s := sessionOf(conn.PgConn()); s != nil && s.endpoint != int(c.current.Load()) {
			return false, nil
		}
		switch {
		case prepare != nil:
			return prepare(ctx, conn)
		case acquire != nil:
			return acquire(ctx, conn), nil
		}
		return true, nil
	}
}

// Connect makes the pool (on the first attempt) and pings it.
func (c *poolConnector) Connect(ctx context.Context) (*pgxpool.Pool, error) {
	if c.pool == nil {
		p, err := pgxpool.NewWithConfig(ctx, c.cfg)
		if err != nil {
			return nil, c.t.scrub(fmt.Errorf("new pool: %w", err))
		}
		c.pool = p
		close(c.made)
	}
	if _, err := c.ping(ctx); err != nil {
		return nil, err
	}
	c.t.answers.ok()
	return c.pool, nil
}

// connectTo makes endpoint i the one the pool dials, resetting the pool
// when it was another (its connections lead to the host left), and pings.
func (c *poolConnector) connectTo(ctx context.Context, i int) (*pgxpool.Pool, error) {
	c.t.answers.at(i)
	if int(c.current.Swap(int32(i))) != i && c.pool != nil {
		c.pool.Reset()
		c.dials.condemn()
	}
	return c.Connect(ctx)
}

// poolReplicas is the Pool's connector of a DSN with several hosts: the
// supervisor calls ConnectTo, one host per attempt, and the pool's dials
// follow.
type poolReplicas struct{ *poolConnector }

// Endpoints returns the hosts' host:port.
func (r poolReplicas) Endpoints() []string { return names(r.t.hosts) }

// ConnectTo makes one attempt on host i.
func (r poolReplicas) ConnectTo(ctx context.Context, i int) (*pgxpool.Pool, error) {
	return r.connectTo(ctx, i)
}

// Close drops every connection of a pool found lost: they lead to a
// server that went away. Idle ones are closed now; those in use when
// they are released. Connections pgconn is already closing (after an
// interrupted query), and those it closes later, get cleanupGrace to do
// it instead of 15s, so that they do not hold the pool's slots.
func (c *poolConnector) Close(p *pgxpool.Pool) error {
	p.Reset()
	c.dials.condemn()
	return nil
}

// Watch pings the pool every interval, and soon after a query's caller
// gave up on it (interrupted), until it finds that the pool can serve no
// query (check). A pool whose every connection works and is in use is
// not pinged, since a ping would only wait for one of them: the queries
// in flight tell, through Do.
func (c *poolConnector) Watch(ctx context.Context, p *pgxpool.Pool) error {
	t := time.NewTimer(c.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-c.suspect:
		}
		if st := p.Stat(); min(st.AcquiredConns(), int32(c.dials.working())) < st.MaxConns() {
			if err := c.check(ctx); err != nil {
				return err
			}
		}
		t.Reset(c.interval)
	}
}

// check pings the pool, and once more when that failed: the second ping
// tells one dead backend (pgxpool destroyed it after the first failure,
// and dials a fresh one) from a server that is gone. A ping that failed
// only to dial one more connection while others work (53300, a refused
// or timed-out dial) is that dial's failure.
func (c *poolConnector) check(ctx context.Context) error {
	var err error
	for range 2 {
		var dial bool
		if dial, err = c.ping(ctx); err == nil || ctx.Err() != nil || dial && c.dials.working() > 0 {
			return nil
		}
	}
	return err
}

// ping pings the pool within the ping timeout; dial says whether it
// failed to make a connection rather than over one.
func (c *poolConnector) ping(ctx context.Context) (dial bool, err error) {
	pctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	err = c.pool.Ping(pctx)
	switch {
	case err == nil:
		return false, nil
	case ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("ping timed out after %v: %w", c.timeout, err)
	default:
		err = fmt.Errorf("ping: %w", err)
	}
	return dialFailed(err), c.t.scrub(err)
}

// interrupted is told of a connection whose query its caller's ctx
// interrupted, which pgx closed: pgxpool drops it, its cleanup (a cancel
// request, the server's goodbye) gets cleanupGrace so that on a dead path
// it does not hold a slot for pgconn's 15s, and Watch pings soon.
func (c *poolConnector) interrupted(pc *pgconn.PgConn) {
	if s := sessionOf(pc); s != nil {
		s.drop()
	}
	select {
	case c.suspect <- struct{}{}:
	default:
	}
}

// close closes the pool when Run ends, within about poolCloseGrace.
func (c *poolConnector) close() {
	if c.pool != nil {
		closePool(c.pool, c.dials)
	}
}
