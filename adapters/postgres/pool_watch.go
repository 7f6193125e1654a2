package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/supervisor"
)

// poolConnector is the Pool's Connector and Watcher. An attempt is a
// ping; a lost pool is reset, not closed, so the same *pgxpool.Pool serves
// across outages. pool is set once, by the first Connect, before made is
// closed.
type poolConnector struct {
	cfg               *pgxpool.Config
	t                 target
	interval, timeout time.Duration
	dials             *dialer
	pool              *pgxpool.Pool
	made              chan struct{}
	suspect           chan struct{} // capacity 1: a caller gave up on a query; Watch pings soon
	current           atomic.Int32  // with several hosts, the endpoint every dial goes to
	started           atomic.Bool   // Run was called
	renew             atomic.Bool   // a replacement is due: the next Connect resets the pool
	closed            sync.Once
	proven            func() // the supervisor's ReportSuccess: wakes a Backoff wait
	waitForReady      bool
	serve             struct {
		sync.Mutex
		ctx    context.Context // ends when the pool Connected last is found lost
		cancel context.CancelFunc
	}
	now   context.Context // ended: the supervisor's Conn with it returns at once
	hooks hookRunner
	role  poolRole
}

func newPoolConnector(cfg *pgxpool.Config, t target, o PoolOptions) *poolConnector {
	defaultConnectTimeout(&cfg.ConnConfig.Config, min(connectTimeout(o.Supervisor.ConnectTimeout), o.PingTimeout))
	now, end := context.WithCancel(context.Background())
	end()
	c := &poolConnector{cfg: cfg, t: t, interval: o.PingInterval, timeout: o.PingTimeout, waitForReady: o.WaitForReady, now: now,
		dials: newDialer(&cfg.ConnConfig.Config), made: make(chan struct{}), suspect: make(chan struct{}, 1),
		hooks: hookRunner{bound: cfg.ConnConfig.ConnectTimeout, crashed: make(chan struct{})}}
	before, configured := o.BeforeConnect, cfg.BeforeConnect
	cfg.BeforeConnect = func(ctx context.Context, cc *pgx.ConnConfig) error {
		at := -1
		if t.several() {
			at = int(c.current.Load())
			t.hosts[at].steer(&cc.Config)
		}
		if before == nil && configured == nil {
			c.dials.session(&cc.Config, at)
			return nil
		}
		return c.hooks.call(ctx, c.wake, func(ctx context.Context) error {
			if configured != nil {
				if err := configured(ctx, cc); err != nil {
					t.remember(cc.Password)
					return &hookError{err}
				}
			}
			return t.prepare(ctx, &cc.Config, at, before, c.dials)
		})
	}
	if t.several() {
		c.keepCurrent(cfg)
	}
	c.watchRole(cfg)
	return c
}

// keepCurrent makes the pool hand out only connections to the current
// endpoint (one dialed while the attempt that moved it ran is destroyed
// when acquired), then lets Configure's PrepareConn decide.
func (c *poolConnector) keepCurrent(cfg *pgxpool.Config) {
	prepare := cfg.PrepareConn
	cfg.PrepareConn = func(ctx context.Context, conn *pgx.Conn) (bool, error) {
		if s := sessionOf(conn.PgConn()); s != nil && s.endpoint != int(c.current.Load()) {
			return false, nil
		}
		if prepare != nil {
			return prepare(ctx, conn)
		}
		return true, nil
	}
}

// Connect makes the pool (on the first attempt) and pings it. A
// replacement's resets it first: the ping dials a fresh connection.
func (c *poolConnector) Connect(ctx context.Context) (*pgxpool.Pool, error) {
	c.raise()
	if c.renew.Swap(false) && c.pool != nil {
		c.pool.Reset() // idle connections closed now, those in use once released
	}
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
	c.serve.Lock()
	c.serve.ctx, c.serve.cancel = context.WithCancel(context.Background())
	c.serve.Unlock()
	return c.pool, nil
}

// serving returns the ctx that ends when the pool is found lost.
func (c *poolConnector) serving() context.Context {
	c.serve.Lock()
	defer c.serve.Unlock()
	if c.serve.ctx == nil {
		return c.now
	}
	return c.serve.ctx
}

// lost ends serving's ctx: the pool was found lost.
func (c *poolConnector) lost() {
	c.serve.Lock()
	defer c.serve.Unlock()
	if c.serve.cancel != nil {
		c.serve.cancel()
	}
}

// connectTo makes endpoint i the one the pool dials, resetting the pool
// when it was another, and pings.
func (c *poolConnector) connectTo(ctx context.Context, i int) (*pgxpool.Pool, error) {
	c.t.answers.at(i)
	if c.moveTo(i) && c.pool != nil {
		c.pool.Reset()
		c.dials.condemn()
	}
	return c.Connect(ctx)
}

// Endpoints returns the DSN's hosts (see target.endpoints).
func (c *poolConnector) Endpoints() []string { return c.t.endpoints() }

func (c *poolConnector) ConnectTo(ctx context.Context, i int) (*pgxpool.Pool, error) {
	if c.t.at(i) < 0 {
		return c.Connect(ctx)
	}
	return c.connectTo(ctx, i)
}

// Close drops every connection of a pool found lost: idle ones now, those
// in use when released; the cleanups under way get cleanupGrace.
func (c *poolConnector) Close(p *pgxpool.Pool) error {
	c.lost()
	p.Reset()
	c.dials.condemn()
	return nil
}

// Watch pings the pool every interval, and soon after a caller gave up on
// a query, until the pool can serve no query. A pool whose every
// connection works and is in use is not pinged: the queries tell, through
// Do.
func (c *poolConnector) Watch(ctx context.Context, p *pgxpool.Pool) error {
	t := time.NewTimer(c.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			c.raise()
			c.renew.Store(errors.Is(context.Cause(ctx), supervisor.ErrSwitched))
			return nil
		case <-c.hooks.crashed:
			c.raise()
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

// check pings, and once more after a failure: pgxpool destroyed the dead
// backend of the first, so the second tells one dead backend from a
// server that is gone. A ping that only failed to dial one more
// connection while others work is that dial's failure.
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

// ping pings the pool within the ping timeout; dial says whether it failed
// to make a connection rather than over one. One left unanswered wraps
// supervisor.ErrSilent.
func (c *poolConnector) ping(ctx context.Context) (dial bool, err error) {
	pctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	err = c.pool.Ping(pctx)
	switch {
	case err == nil:
		return false, nil
	case ctx.Err() == nil && (pctx.Err() != nil || pgconn.Timeout(err)):
		err = fmt.Errorf("ping: no answer within %v: %w: %w", c.timeout, supervisor.ErrSilent, err)
	default:
		err = fmt.Errorf("ping: %w", err)
	}
	return dialFailed(err), c.t.scrub(err)
}

// interrupted is told of a connection whose query its caller's ctx
// interrupted, which pgx closed: its cleanup gets cleanupGrace, and Watch
// pings soon.
func (c *poolConnector) interrupted(pc *pgconn.PgConn) {
	if s := sessionOf(pc); s != nil {
		s.drop()
	}
	select {
	case c.suspect <- struct{}{}:
	default:
	}
}

// A hook's panic is raised where the supervisor recovers it: Connect,
// Watch, and Classify, which sees every error after it; wake ends a
// Backoff wait so that an attempt comes.
func (c *poolConnector) wake() {
	if c.proven != nil {
		c.proven()
	}
}

func (c *poolConnector) classify(err error) error {
	c.raise()
	return c.t.classify(err)
}

func (c *poolConnector) raise() {
	if p := c.hooks.panicked.Load(); p != nil {
		panic(p.value)
	}
}

// close closes the pool, once, within about poolCloseGrace.
func (c *poolConnector) close() {
	c.closed.Do(func() {
		select {
		case <-c.made:
			closePool(c.pool, c.dials)
		default:
		}
	})
}

// dialFailed reports whether err, an acquire's or a ping's, is the failure
// to make a connection rather than of a query over one.
func dialFailed(err error) bool {
	var ce *pgconn.ConnectError
	var he *hookError
	return errors.As(err, &ce) || errors.As(err, &he)
}
