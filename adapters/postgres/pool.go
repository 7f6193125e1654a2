package postgres

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

// Defaults of PoolOptions.
const (
	DefaultPingInterval = 5 * time.Second
	DefaultPingTimeout  = 3 * time.Second
)

// PoolOptions configures NewPool. The zero value of every field means its
// default; NewPool copies it.
type PoolOptions struct {
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
	// TooManyConnectionsHint is the shortest wait after the server refused
	// a connection with SQLSTATE 53300 (too many connections); 0 means
	// DefaultTooManyConnectionsHint (5s).
	TooManyConnectionsHint time.Duration
	// Supervisor configures the Pool's supervisor; see supervisor.New for
	// its defaults. An empty Name becomes the DSN's target, redacted. Its
	// Classify, if set, runs after this package's.
	Supervisor supervisor.Settings
}

// Pool supervises one *pgxpool.Pool. Its health follows a bounded Ping
// on an interval: Connected while pings succeed; Backoff, with pings paced
// by the jittered backoff, while the database is down; Connected again
// when it is back, with the same *pgxpool.Pool, so a program that kept
// the pool needs no restart. One dead backend does not make the pool
// unhealthy: pgxpool drops it and a second ping, on a fresh connection,
// decides. It offers the supervisor's Run, Status, Subscribe, Done, Err
// and Name; its methods are safe for concurrent use.
//
// The pool itself is created by the first attempt and closed when Run
// returns; it never re-sends a query (see the package documentation).
type Pool struct {
	sup     *supervisor.Supervisor[*pgxpool.Pool]
	c       *poolConnector
	started atomic.Bool
	done    chan struct{} // closed once Run has returned and the pool is closed
	err     error         // what Run returned; written before done is closed
}

// NewPool returns a Pool on dsn (see NewConn for its forms; it may carry
// pool_max_conns and the other pgxpool settings); Run starts it.
// Defaults: PingInterval 5s, PingTimeout 3s, no Configure,
// TooManyConnectionsHint 5s, the supervisor's own and Name the redacted
// target. Bad options are one error wrapping supervisor.ErrInvalidOptions
// that names the field.
func NewPool(dsn string, o PoolOptions) (*Pool, error) {
	if err := checkDSN(dsn); err != nil {
		return nil, err
	}
	if err := pingDefaults(&o.PingInterval, &o.PingTimeout, DefaultPingInterval); err != nil {
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
	t := newTarget(dsn, &cfg.ConnConfig.Config, hint)
	c := &poolConnector{cfg: cfg, secrets: t.secrets, interval: o.PingInterval, timeout: o.PingTimeout}
	c.dials.track(cfg)
	sup, err := newSupervisor(t, c, adapt.Options[*pgxpool.Pool](o.Supervisor, nil))
	if err != nil {
		return nil, err
	}
	return &Pool{sup: sup, c: c, done: make(chan struct{})}, nil
}

// Run supervises the pool until ctx ends (it returns nil) or it gives up
// (it returns the error, wrapping supervisor.ErrFailed). Before returning
// it closes the pool: connections get one second to say goodbye, then the
// ones still open (a stalled network, a query still running) are cut, so
// Run returns promptly. Stop the goroutines that use the pool before
// ending Run's ctx, or their queries fail. Run may be called once.
func (p *Pool) Run(ctx context.Context) error {
	if !p.started.CompareAndSwap(false, true) {
		return p.sup.Run(ctx) // supervisor.ErrAlreadyStarted, and nothing else
	}
	p.err = p.sup.Run(ctx)
	p.c.close()
	close(p.done)
	return p.err
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

// Done returns a channel that is closed once Run has returned, after the
// pool is closed.
func (p *Pool) Done() <-chan struct{} { return p.done }

// Err returns what Run returned once Done is closed: nil when it stopped
// because its ctx ended, the error (wrapping supervisor.ErrFailed) when it
// gave up. Before that it returns nil.
func (p *Pool) Err() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

// Name returns the Pool's name: Supervisor.Name, or the redacted target.
func (p *Pool) Name() string { return p.sup.Name() }
