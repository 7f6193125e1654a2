package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/supervisor"
)

// ConnOptions configures NewConn. The zero value of every field means its
// default; NewConn copies it.
type ConnOptions struct {
	// Configure, when set, is called once by NewConn with the parsed
	// config: the place for a Tracer or a custom TLS config. nil: none.
	Configure func(*pgx.ConnConfig)
	// BeforeConnect, when set, is called before every connection attempt
	// with the copy of the parsed config the attempt dials with (its Host
	// and Port those of the one host it dials), and may change it:
	// cfg.Password to a rotating password or an IAM authentication token,
	// most often. The password it leaves there is masked like the DSN's
	// wherever it could show. An error from it fails the attempt (retried
	// with the backoff, unless it is backoff.Permanent). With it set, a
	// login refused with 28P01 or 28000 is retried with the backoff rather
	// than given up on: the next attempt may carry new credentials. nil:
	// the DSN's credentials, and those refusals are final.
	BeforeConnect func(ctx context.Context, cfg *pgconn.Config) error
	// TooManyConnectionsHint is the shortest wait after the server refused
	// a connection with SQLSTATE 53300 (too many connections); 0 means
	// DefaultTooManyConnectionsHint (5s).
	TooManyConnectionsHint time.Duration
	// Supervisor configures the supervisor; see supervisor.New for its
	// defaults. An empty Name becomes "postgres conn " and the DSN's
	// target, redacted (postgres conn postgres://user@host:5432/db). Its Classify, if set, runs after
	// this package's. Its OnConnect runs after every connect, before the
	// state is Connected: prepare statements, SET search_path, register
	// types; an error fails the attempt.
	Supervisor supervisor.Options[*pgx.Conn]
}

// NewConn returns a supervisor over one *pgx.Conn to dsn; Run starts it
// and Conn or Do hand out the connection. dsn is a URL
// (postgres://user:password@host:5432/db?sslmode=verify-full) or key=value
// pairs (host=... user=... password='...' dbname=...); its password never
// appears in an error, a log line or a Status, in either form. Defaults:
// no Configure, no BeforeConnect, TooManyConnectionsHint 5s, the
// supervisor's own (Backoff Decorrelated with Base 1s and Cap 1 minute,
// StableAfter 30s, ConnectTimeout 10s, MaxAttempts 0, MaxHint 5 minutes)
// and Name "postgres conn " and the redacted target. Every connect (the
// dial, TLS and the login) and every cancel request is bounded by the
// DSN's connect_timeout, or else by Supervisor.ConnectTimeout. Bad
// options are one error wrapping supervisor.ErrInvalidOptions that names
// the field. The hosts of a DSN with several are the supervisor's
// endpoints, one dialed per attempt, the next one at once after a failure
// (Supervisor.FailoverSpread); see the package documentation.
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
	if o.Configure != nil {
		o.Configure(cfg)
	}
	t := newTarget("conn", dsn, &cfg.Config, hint, o.BeforeConnect != nil)
	c := newConnector(cfg, t, o.BeforeConnect, connectTimeout(o.Supervisor.Settings))
	var sup *supervisor.Supervisor[*pgx.Conn]
	if t.several() {
		sup, err = newSupervisor[*pgx.Conn](t, replicas{c}, o.Supervisor)
	} else {
		sup, err = newSupervisor(t, c, o.Supervisor)
	}
	if err != nil {
		return nil, err
	}
	return &Conn{Supervisor: sup, turn: make(chan struct{}, 1)}, nil
}

// closeTimeout bounds closing one connection: the Terminate message, and
// pgconn's cleanup of a connection it closed on its own.
const closeTimeout = 2 * time.Second

// connector makes *pgx.Conn connections; its errors are scrubbed of the
// target's secrets before they leave it.
type connector struct {
	cfg    *pgx.ConnConfig // the template: each attempt dials with a copy
	t      target
	before beforeConnect
	dials  *dialer
}

// newConnector returns the connector of cfg, whose connect timeout
// defaults to timeout.
func newConnector(cfg *pgx.ConnConfig, t target, before beforeConnect, timeout time.Duration) *connector {
	defaultConnectTimeout(&cfg.Config, timeout)
	return &connector{cfg: cfg, t: t, before: before, dials: newDialer(&cfg.Config)}
}

// Connect makes one attempt on the DSN's one host (pgx walks the list
// when there is no other choice: target_session_attrs=prefer-standby).
func (c *connector) Connect(ctx context.Context) (*pgx.Conn, error) { return c.connect(ctx, -1) }

// connect makes one attempt on endpoint i, or with the whole config when
// i < 0.
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

// Close closes conn and waits, up to closeTimeout, until pgconn has
// released everything it holds (a connection it closed itself after an
// error is cleaned up on a goroutine of its own, with a cancel request:
// dropped, that cleanup gets cleanupGrace). What is still open then is
// cut.
func (c *connector) Close(conn *pgx.Conn) error {
	s := sessionOf(conn.PgConn())
	if s != nil {
		s.drop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
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

// Broken tells supervisor.Do that err broke the connection: IsConnError.
func (c *connector) Broken(err error) bool { return IsConnError(err) }

// replicas is the connector of a DSN with several hosts: the supervisor
// calls ConnectTo, one host per attempt.
type replicas struct{ *connector }

// Endpoints returns the hosts' host:port.
func (r replicas) Endpoints() []string { return names(r.t.hosts) }

// ConnectTo makes one attempt on host i.
func (r replicas) ConnectTo(ctx context.Context, i int) (*pgx.Conn, error) { return r.connect(ctx, i) }
