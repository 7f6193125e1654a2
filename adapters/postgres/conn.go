package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/supervisor"
)

// ConnOptions configures NewConn. The zero value of every field means its
// default; NewConn copies it.
type ConnOptions struct {
	// Configure, when set, is called once by NewConn with the parsed
	// config: the place for a Tracer or a custom TLS config.
	Configure func(*pgx.ConnConfig)
	// BeforeConnect, when set, is called before every attempt with the
	// copy of the config the attempt dials with (Host and Port of the one
	// host it dials) and may change it: cfg.Password to a rotating
	// password or an IAM token. The password it leaves is masked like the
	// DSN's. Its error fails the attempt (retried unless
	// backoff.Permanent). With it set, 28P01 and 28000 are retried, since
	// the next attempt may carry new credentials; without it they are
	// final.
	BeforeConnect func(ctx context.Context, cfg *pgconn.Config) error
	// TooManyConnectionsHint is the shortest wait after a 53300 refusal;
	// 0 means DefaultTooManyConnectionsHint (5s).
	TooManyConnectionsHint time.Duration
	// OnConnect runs after every connect, before Connected: prepare
	// statements, SET search_path, register types. See
	// supervisor.Options.OnConnect.
	OnConnect func(ctx context.Context, conn *pgx.Conn) error
	// Supervisor configures the supervisor; an empty Name becomes
	// "postgres conn " and the redacted target.
	Supervisor supervisor.Settings
}

// NewConn returns a supervisor over one *pgx.Conn to dsn, a URL
// (postgres://user:password@host:5432/db) or key=value pairs, whose
// password is never shown. Defaults: TooManyConnectionsHint 5s, the
// supervisor's own (Backoff Decorrelated 1s to 1 minute, ConnectTimeout
// 10s, never give up), Name "postgres conn " and the redacted target.
// Every dial, login and cancel request is bounded by the DSN's
// connect_timeout, or else by Supervisor.ConnectTimeout. A DSN's hosts are
// the supervisor's endpoints.
func NewConn(dsn string, o ConnOptions) (*Conn, error) {
	if err := checkDSN(dsn); err != nil {
		return nil, err
	}
	hint, err := checkHint(o.TooManyConnectionsHint)
	if err != nil {
		return nil, err
	}
	cfg, err := parseConn(dsn)
	if err != nil {
		return nil, err
	}
	cfg.BuildContextWatcherHandler = keepOnCancel
	if o.Configure != nil {
		o.Configure(cfg)
	}
	t := newTarget("conn", dsn, &cfg.Config, hint, o.BeforeConnect != nil)
	c := newConnector(cfg, t, o.BeforeConnect, connectTimeout(o.Supervisor.ConnectTimeout))
	c.turn = make(chan struct{}, 1)
	sup, err := newSupervisor(t, nil, c, withOnConnect(o.Supervisor, o.OnConnect))
	if err != nil {
		return nil, err
	}
	return &Conn{lifecycle: adapt.Lift(sup), sup: sup, turn: c.turn, role: t.role}, nil
}

// closeTimeout bounds closing one connection: the wait for its turn, the
// Terminate message and pgconn's cleanup.
const closeTimeout = 2 * time.Second

// connector makes *pgx.Conn connections; its errors are scrubbed of the
// target's secrets.
type connector struct {
	cfg    *pgx.ConnConfig // the template: each attempt dials with a copy
	t      target
	before beforeConnect
	dials  *dialer
	turn   chan struct{} // a Conn's; nil for a Listener's
}

func newConnector(cfg *pgx.ConnConfig, t target, before beforeConnect, timeout time.Duration) *connector {
	defaultConnectTimeout(&cfg.Config, timeout)
	return &connector{cfg: cfg, t: t, before: before, dials: newDialer(&cfg.Config)}
}

func (c *connector) Connect(ctx context.Context) (*pgx.Conn, error) { return c.connect(ctx, -1) }

// connect makes one attempt on endpoint i, or with the whole config when
// i < 0 (one host, or target_session_attrs=prefer-standby).
func (c *connector) connect(ctx context.Context, i int) (*pgx.Conn, error) {
	cfg := c.cfg.Copy()
	if i >= 0 {
		c.t.hosts[i].steer(&cfg.Config) // before BeforeConnect: a token may depend on the host
		c.t.answers.at(i)
	}
	if err := c.t.prepare(ctx, &cfg.Config, i, c.before, c.dials); err != nil {
		return nil, c.t.scrub(err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, c.t.scrub(err)
	}
	c.t.answers.ok()
	return conn, nil
}

// Close closes conn within closeTimeout; what is still open then is cut.
// A *pgx.Conn is not safe for concurrent use, so a Conn's is closed in its
// turn: while a Do or a loop body holds it, its network connection is cut
// first, so that the user's call fails and gives the turn back, and if
// the turn does not come back in time the *pgx.Conn is left alone, cut.
func (c *connector) Close(conn *pgx.Conn) error {
	s := sessionOf(conn.PgConn())
	if s != nil {
		s.drop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if c.turn != nil {
		if !c.takeToClose(ctx, s) {
			return nil
		}
		defer func() { <-c.turn }()
	}
	err := conn.Close(ctx)
	select {
	case <-conn.PgConn().CleanupDone():
	case <-ctx.Done():
		if s != nil {
			s.cut()
		}
	}
	return c.t.scrub(err)
}

// takeToClose takes the turn, cutting s when it is busy; false when it did
// not come before ctx ended.
func (c *connector) takeToClose(ctx context.Context, s *session) bool {
	select {
	case c.turn <- struct{}{}:
		return true
	default:
	}
	if s != nil {
		s.cut()
	}
	select {
	case c.turn <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// Broken tells supervisor.Do that err broke the connection.
func (c *connector) Broken(err error) bool { return IsConnError(err) }

// Endpoints returns the DSN's hosts (see target.endpoints).
func (c *connector) Endpoints() []string { return c.t.endpoints() }

func (c *connector) ConnectTo(ctx context.Context, i int) (*pgx.Conn, error) {
	return c.connect(ctx, c.t.at(i))
}
