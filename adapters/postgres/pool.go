package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// Defaults of PoolOptions.
const (
	DefaultPingInterval = 5 * time.Second
	DefaultPingTimeout  = 3 * time.Second
)

// PoolOptions configures NewPool.
type PoolOptions struct {
	Options
	// PingInterval is the time between two health pings of a Connected
	// pool; 0 means DefaultPingInterval (5s). While the database is down,
	// pings follow the backoff instead.
	PingInterval time.Duration
	// PingTimeout bounds each ping (acquiring a connection, dialing if
	// need be, and the round trip); 0 means DefaultPingTimeout (3s).
	PingTimeout time.Duration
	// Configure, when set, is called once by NewPool with the parsed
	// config: MaxConns, AfterConnect, a Tracer. nil: none. Leave MinConns
	// at 0 to keep every dial while the database is down paced by the
	// backoff: pgxpool refills MinConns on its own schedule.
	Configure func(*pgxpool.Config)
}

// Pool supervises one *pgxpool.Pool. Its health follows a bounded Ping
// on an interval: Connected while pings succeed; Backoff, with pings paced
// by the jittered backoff, while the database is down; Connected again
// when it is back, with the same *pgxpool.Pool, so a program that kept
// the pool needs no restart. One dead backend does not make the pool
// unhealthy: pgxpool drops it and a second ping, on a fresh connection,
// decides. Its methods are safe for concurrent use.
//
// The pool itself is created by the first attempt and closed when Run
// returns; it never re-sends a query (see the package documentation).
type Pool struct {
	sup     *supervisor.Supervisor[*pgxpool.Pool]
	c       *poolConnector
	started atomic.Bool
}

// NewPool returns a Pool; Run starts it. Defaults: see Options and
// PoolOptions; the Name is "postgres-pool". Bad options are an error that
// names the field.
func NewPool(o PoolOptions) (*Pool, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if err := pingDefaults(&o.PingInterval, &o.PingTimeout, DefaultPingInterval); err != nil {
		return nil, err
	}
	cfg, err := parsePool(o.DSN)
	if err != nil {
		return nil, err
	}
	if o.Configure != nil {
		o.Configure(cfg)
	}
	if cfg.MaxConns < 1 || cfg.MinConns > cfg.MaxConns {
		return nil, fmt.Errorf("%w: Configure left MaxConns %d, MinConns %d (want 1 <= MaxConns, MinConns <= MaxConns)", ErrInvalidOptions, cfg.MaxConns, cfg.MinConns)
	}
	c := &poolConnector{cfg: cfg, secrets: secretsOf(o.DSN, &cfg.ConnConfig.Config), interval: o.PingInterval, timeout: o.PingTimeout}
	c.dials.track(cfg)
	sup, err := newSupervisor[*pgxpool.Pool](c, supervise[*pgxpool.Pool](o.Options, "postgres-pool", c.secrets, nil))
	if err != nil {
		return nil, err
	}
	return &Pool{sup: sup, c: c}, nil
}

// Run supervises the pool until ctx ends (it returns nil) or it gives up
// (it returns the error). Before returning it closes the pool: connections
// get one second to say goodbye, then the ones still open (a stalled
// network, a query still running) are cut, so Run returns promptly. Stop
// the goroutines that use the pool before ending Run's ctx, or their
// queries fail. Run may be called once.
func (p *Pool) Run(ctx context.Context) error {
	if !p.started.CompareAndSwap(false, true) {
		return p.sup.Run(ctx) // supervisor.ErrAlreadyStarted, and nothing else
	}
	defer p.c.close()
	return p.sup.Run(ctx)
}

// Conn returns the pool once it is Connected, waiting while it is not;
// it fails when ctx ends or the Pool has stopped or given up. The pool
// stays the same for the Pool's whole life.
func (p *Pool) Conn(ctx context.Context) (*pgxpool.Pool, error) { return p.sup.Conn(ctx) }

// Status returns a snapshot of the pool's health; a Pool is a
// health.Source.
func (p *Pool) Status() health.Status { return p.sup.Status() }

// Subscribe returns the conflating health channel; see
// supervisor.Supervisor.Subscribe.
func (p *Pool) Subscribe() (<-chan health.Status, func()) { return p.sup.Subscribe() }

// Name returns the Pool's name.
func (p *Pool) Name() string { return p.sup.Name() }
