package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

// Defaults of the PingInterval and PingTimeout of ListenerOptions and
// PoolOptions.
const (
	DefaultPingInterval = 5 * time.Second
	DefaultPingTimeout  = 3 * time.Second
)

// PoolOptions configures NewPool. The zero value of every field means its
// default; NewPool copies it.
type PoolOptions struct {
	// PingInterval is the time between two health pings of a Connected
	// pool; 0 means DefaultPingInterval (5s). In Backoff, the attempts
	// ping, paced by the backoff.
	PingInterval time.Duration
	// PingTimeout bounds each ping, a dial included; 0 means
	// DefaultPingTimeout (3s). Unless the DSN sets connect_timeout, every
	// dial of the pool (pgxpool's own and cancel requests included) and
	// every BeforeConnect call is bounded by the shorter of PingTimeout
	// and Supervisor.ConnectTimeout.
	PingTimeout time.Duration
	// Configure, when set, is called once by NewPool with the parsed
	// config: MaxConns, AfterConnect, a Tracer. Leave MinConns at 0 to
	// keep the dials of an outage paced by the backoff. With several
	// hosts the Pool sets PrepareConn (calling Configure's after its own
	// check), so pgxpool ignores the deprecated BeforeAcquire there.
	Configure func(*pgxpool.Config)
	// BeforeConnect, when set, is called before every dial of the pool,
	// after a BeforeConnect that Configure set, with the copy of the
	// config that dial uses (Host and Port of the current host). It runs
	// on a goroutine of its own: a panic in it fails the Pool
	// (supervisor.ErrPanicked) and Run panics again with the value. See
	// ConnOptions.BeforeConnect for the rest.
	BeforeConnect func(ctx context.Context, cfg *pgconn.Config) error
	// TooManyConnectionsHint is the shortest wait after a 53300 refusal;
	// 0 means DefaultTooManyConnectionsHint (5s).
	TooManyConnectionsHint time.Duration
	// WaitForReady makes Do wait for Connected, until its ctx ends, rather
	// than fail at once (ErrNotReady) while the Pool is not Connected. Off
	// by default, as in gRPC: a caller in an outage (an HTTP handler) gets
	// its answer now instead of holding a goroutine until its deadline.
	WaitForReady bool
	// Supervisor configures the supervisor; an empty Name becomes
	// "postgres pool " and the redacted target.
	Supervisor supervisor.Settings
}

// Pool supervises one *pgxpool.Pool, which stays the same for the Pool's
// whole life: Conn (the supervisor's) returns it once Connected; Do runs a
// query on it and tells the Pool what the query proved. Replace and
// MaxConnectionAge renew its connections: the idle ones are closed and a
// fresh one pinged, those in use are closed once released. The health says
// whether the pool can serve: Connected while its pings and Do's queries
// work, Backoff while it can serve none (see Do). Its methods are safe for
// concurrent use.
type Pool struct {
	lifecycle[*pgxpool.Pool]
	sup    *supervisor.Supervisor[*pgxpool.Pool]
	c      *poolConnector
	closed chan struct{} // closed when Run has closed the pool
}

// NewPool returns a Pool on dsn (see NewConn; the DSN may carry
// pool_max_conns and the other pgxpool settings). Defaults: PingInterval
// 5s, PingTimeout 3s, TooManyConnectionsHint 5s, the supervisor's own,
// Name "postgres pool " and the redacted target.
func NewPool(dsn string, o PoolOptions) (*Pool, error) {
	if err := checkDSN(dsn); err != nil {
		return nil, err
	}
	if err := pingDefaults(&o.PingInterval, &o.PingTimeout); err != nil {
		return nil, err
	}
	hint, err := checkHint(o.TooManyConnectionsHint)
	if err != nil {
		return nil, err
	}
	cfg, err := parsePool(dsn)
	if err != nil {
		return nil, err
	}
	if o.Configure != nil {
		o.Configure(cfg)
	}
	if cfg.MaxConns < 1 || cfg.MinConns > cfg.MaxConns {
		return nil, opterr.New(pkg, "Configure", nil, "left MaxConns %d, MinConns %d (want 1 <= MaxConns, MinConns <= MaxConns)", cfg.MaxConns, cfg.MinConns)
	}
	t := newTarget("pool", dsn, &cfg.ConnConfig.Config, hint, o.BeforeConnect != nil)
	c := newPoolConnector(cfg, t, o)
	sup, err := newSupervisor(t, c.classify, c, withOnConnect[*pgxpool.Pool](o.Supervisor, nil))
	if err != nil {
		return nil, err
	}
	c.proven = sup.ReportSuccess
	c.role.replace = func(err error) { sup.Invalidate(c.pool, err) }
	return &Pool{lifecycle: adapt.Lift(sup), sup: sup, c: c, closed: make(chan struct{})}, nil
}

// Run is the supervisor's Run, and then closes the pool: connections get
// a second to say goodbye, then those still open are cut. Done is closed
// when the supervisor ends, before the pool is; Run returns after. A
// BeforeConnect that panicked after the supervisor's last attempt makes
// Run panic with its value too.
func (p *Pool) Run(ctx context.Context) error {
	if !p.c.started.CompareAndSwap(false, true) {
		return p.sup.Run(ctx) // ErrAlreadyStarted
	}
	defer p.c.close() // when Run panics too
	err := p.sup.Run(ctx)
	p.c.close()
	close(p.closed)
	p.c.hooks.over.Store(true)
	if h := p.c.hooks.panicked.Load(); h != nil {
		panic(programs(h.value))
	}
	return err
}

// Drain is the supervisor's Drain (Do refused with ErrDraining, the Do
// calls under way waited for), and returns once Run has closed the pool:
// each connection said goodbye (Terminate).
func (p *Pool) Drain(ctx context.Context) error {
	err := p.sup.Drain(ctx)
	if err != nil {
		return err
	}
	select {
	case <-p.closed:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("postgres: drain: the pool's close cut short: %w", context.Cause(ctx))
	}
}

// Stat returns the pool's statistics (pgxpool's, for metrics), or nil
// before the first attempt made the pool.
func (p *Pool) Stat() *pgxpool.Stat {
	select {
	case <-p.c.made:
		return p.c.pool.Stat()
	default:
		return nil
	}
}
