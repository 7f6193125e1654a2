package postgres

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/health"
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
	// Unless the DSN sets connect_timeout, every dial of the pool (a
	// query's, a ping's, one pgxpool makes in the background, a cancel
	// request) is bounded by the shorter of PingTimeout and
	// Supervisor.ConnectTimeout too, so that none outlives the outage it
	// was made in.
	PingTimeout time.Duration
	// Configure, when set, is called once by NewPool with the parsed
	// config: MaxConns, AfterConnect, a Tracer. nil: none. Leave MinConns
	// at 0 to keep every dial while the database is down paced by the
	// backoff: pgxpool refills MinConns on its own schedule.
	Configure func(*pgxpool.Config)
	// BeforeConnect, when set, is called before every dial of every
	// connection of the pool — a ping's, a query's, one pgxpool makes in
	// the background — with the copy of the parsed config that dial uses
	// (its Host and Port those of the current host, with several), and may
	// change it: cfg.Password to a rotating password or an IAM
	// authentication token, most often. It runs inside pgxpool's
	// BeforeConnect, after one that Configure set. The password it leaves
	// there is masked like the DSN's wherever it could show. An error from
	// it fails that dial (and the ping or query that needed it). With it
	// set, a login refused with 28P01 or 28000 is retried with the backoff
	// rather than given up on, and the *pgxpool.Pool the program holds
	// works again once the credentials are good. nil: the DSN's
	// credentials, and those refusals are final (the Pool fails and its
	// pool is closed).
	BeforeConnect func(ctx context.Context, cfg *pgconn.Config) error
	// TooManyConnectionsHint is the shortest wait after the server refused
	// a connection with SQLSTATE 53300 (too many connections); 0 means
	// DefaultTooManyConnectionsHint (5s).
	TooManyConnectionsHint time.Duration
	// Supervisor configures the Pool's supervisor; see supervisor.New for
	// its defaults. An empty Name becomes "postgres pool " and the DSN's
	// target, redacted. Its Classify, if set, runs after this package's.
	Supervisor supervisor.Settings
}

// Pool supervises one *pgxpool.Pool. Its health says whether the pool
// can serve a query, from a bounded Ping on an interval and the queries
// run through Do: Connected while they work; Backoff, with pings paced by
// the jittered backoff, while the database is down; Connected again when
// it is back, with the same *pgxpool.Pool, so a program that kept the
// pool needs no restart. One dead backend does not make it unhealthy to
// the pings (pgxpool drops it and a second ping decides), nor does a dial
// of one more connection that fails while others work (53300 from a full
// server), nor a query its caller gave up on; a query through Do over an
// existing connection that fails with a connection error (IsConnError)
// makes it Backoff at once: a pool whose every connection is busy is not
// pinged, and a server restart that the pings missed still shows. It
// offers the supervisor's Run, Status, Subscribe, Done, Err, Name and
// History; its methods are safe for concurrent use.
//
// The pool itself is created by the first attempt and closed when Run
// returns; it never re-sends a query (see the package documentation).
// Errors from queries run on it directly (pool.Query, pool.Exec) may
// carry pgx's *pgconn.ConnectError, whose Config holds the password: pass
// them through SafeError before logging or storing them; Do's errors
// have been already.
type Pool struct {
	sup     *supervisor.Supervisor[*pgxpool.Pool]
	c       *poolConnector
	started atomic.Bool
	done    chan struct{} // closed once Run has returned and the pool is closed
	err     error         // what Run returned; written before done is closed
}

// NewPool returns a Pool on dsn (see NewConn for its forms; it may carry
// pool_max_conns and the other pgxpool settings); Run starts it.
// Defaults: PingInterval 5s, PingTimeout 3s, no Configure, no
// BeforeConnect, TooManyConnectionsHint 5s, the supervisor's own and Name
// "postgres pool " and the redacted target; every dial bounded by the
// DSN's connect_timeout, or else by the shorter of PingTimeout and
// Supervisor.ConnectTimeout (3s with the defaults). Bad options are one error wrapping
// supervisor.ErrInvalidOptions that names the field. With several hosts
// in the DSN, every dial of the pool goes to the current one, and a Pool
// that lost it moves to the next at once with the same *pgxpool.Pool
// (see the package documentation).
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
	t := newTarget("pool", dsn, &cfg.ConnConfig.Config, hint, o.BeforeConnect != nil)
	c := newPoolConnector(cfg, t, o)
	var sup *supervisor.Supervisor[*pgxpool.Pool]
	if t.several() {
		sup, err = newSupervisor[*pgxpool.Pool](t, poolReplicas{c}, supervisor.Options[*pgxpool.Pool]{Settings: o.Supervisor})
	} else {
		sup, err = newSupervisor(t, c, supervisor.Options[*pgxpool.Pool]{Settings: o.Supervisor})
	}
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

// History returns the Pool's last transitions, oldest first (see
// supervisor.Supervisor.History): a Pool is a health.HistorySource, for
// the status page.
func (p *Pool) History() []health.Transition { return p.sup.History() }

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

// Name returns the Pool's name: Supervisor.Name, or "postgres pool " and
// the redacted target.
func (p *Pool) Name() string { return p.sup.Name() }
