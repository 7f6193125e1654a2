package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// The harnesses of Conn, Listener and Pool share a server: a cluster and a
// database of the test's, and a role of each case's (the cases run one
// after the other), reached through redialtest's Proxy, which kills,
// stalls and refuses. The role's CONNECTION LIMIT 0 is the refusal that is
// retried (53300), the database renamed away the one given up on (3D000,
// final even with BeforeConnect); CloseConns terminates the role's
// backends. BeforeConnect's credential becomes the role's password, as a
// token service's would.

// TestConformance runs the suite against Conn, Listener and Pool, one
// after the other, on one cluster.
func TestConformance(t *testing.T) {
	a := startAdmin(t)
	t.Run("Conn", func(t *testing.T) { conformanceConn(t, a) })
	t.Run("Listener", func(t *testing.T) { conformanceListener(t, a) })
	t.Run("Pool", func(t *testing.T) { conformancePool(t, a) })
}

func conformanceConn(t *testing.T, a *admin) {
	h := pgHarness(a)
	h.New = func(t testing.TB, addr string, o redialtest.Options) (redialtest.Client, error) {
		s := o.Server.(*pgServer)
		return postgres.NewConn(s.dsn(addr, o), postgres.ConnOptions{
			BeforeConnect:          s.beforeConnect(o.BeforeConnect),
			TooManyConnectionsHint: tooManyHint,
			OnConnect:              redialtest.OnConnect[*pgx.Conn](o.OnConnect),
			Supervisor:             o.Settings,
		})
	}
	h.OnConnect = true
	h.Streams = []redialtest.Stream{redialtest.Connections(asConn, pingUntilBroken)}
	h.Skip["stall"] = "a Conn is not watched: a *pgx.Conn is not safe for concurrent use, so the program's queries find a broken one (Do invalidates it)"
	redialtest.TestConnector(t, h)
}

func conformanceListener(t *testing.T, a *admin) {
	h := pgHarness(a)
	h.New = func(t testing.TB, addr string, o redialtest.Options) (redialtest.Client, error) {
		s := o.Server.(*pgServer)
		return postgres.NewListener(s.dsn(addr, o), postgres.ListenerOptions{
			Channels:               []string{channel},
			PingInterval:           pingInterval,
			PingTimeout:            pingTimeout,
			BeforeConnect:          s.beforeConnect(o.BeforeConnect),
			TooManyConnectionsHint: tooManyHint,
			Supervisor:             o.Settings,
		})
	}
	h.Streams = []redialtest.Stream{{Name: "Notifications", Range: func(ctx context.Context, c redialtest.Client) iter.Seq2[any, error] {
		return redialtest.Seq2(c.(*postgres.Listener).Notifications(ctx))
	}}}
	h.Bad = append(h.Bad, redialtest.Bad{Field: "PingInterval", New: func() error {
		_, err := postgres.NewListener("postgres://u@h/db", postgres.ListenerOptions{PingInterval: -1})
		return err
	}})
	h.Skip["panic-on-connect"], h.Skip["timeout-on-connect"] = noOnConnect, noOnConnect
	redialtest.TestConnector(t, h)
}

func conformancePool(t *testing.T, a *admin) {
	h := pgHarness(a)
	h.New = func(t testing.TB, addr string, o redialtest.Options) (redialtest.Client, error) {
		s := o.Server.(*pgServer)
		return postgres.NewPool(s.dsn(addr, o), postgres.PoolOptions{
			PingInterval:           pingInterval,
			PingTimeout:            pingTimeout,
			BeforeConnect:          s.beforeConnect(o.BeforeConnect),
			TooManyConnectionsHint: tooManyHint,
			Supervisor:             o.Settings,
		})
	}
	h.Bad = append(h.Bad, redialtest.Bad{Field: "PingTimeout", New: func() error {
		_, err := postgres.NewPool("postgres://u@h/db", postgres.PoolOptions{PingTimeout: -1})
		return err
	}})
	h.Skip["panic-on-connect"], h.Skip["timeout-on-connect"] = noOnConnect, noOnConnect
	h.Liveness = pingInterval + 2*pingTimeout // a ping on the stalled connection, then one on a fresh one
	redialtest.TestConnector(t, h)
}

const (
	database     = "conformance"
	channel      = "conformance"
	pingInterval = 200 * time.Millisecond
	pingTimeout  = time.Second
	tooManyHint  = 10 * time.Millisecond
	noOnConnect  = "its connection stays private: it has no OnConnect"
	noSecretEcho = "PostgreSQL repeats nothing the client sent when a session ends (terminated, or closed by the client): secrets-refused covers its connect errors"
)

// startAdmin starts the cluster of the suite and its database.
func startAdmin(t *testing.T) *admin {
	a := &admin{c: pgtest.Start(t, pgtest.Options{})}
	t.Cleanup(a.close)
	a.exec(t, "CREATE DATABASE "+database)
	return a
}

// pgHarness is what the three harnesses share.
func pgHarness(a *admin) redialtest.Harness {
	return redialtest.Harness{
		Pkg:      "postgres",
		Start:    func(t testing.TB) redialtest.Server { return startPG(t, a) },
		Hook:     "BeforeConnect",
		Secrets:  true,
		Refusal:  `database "` + database + `" does not exist (SQLSTATE 3D000)`,
		Liveness: pingInterval + pingTimeout,
		Silent:   supervisor.ErrSilent,
		Bad: []redialtest.Bad{
			{Want: "postgres: dsn: empty (want postgres://user:password@host:5432/db or host=... user=... dbname=...)", New: func() error {
				_, err := postgres.NewConn("", postgres.ConnOptions{})
				return err
			}},
			{Field: "TooManyConnectionsHint", New: func() error {
				_, err := postgres.NewConn("postgres://u@h/db", postgres.ConnOptions{TooManyConnectionsHint: -1})
				return err
			}},
		},
		Skip: map[string]string{
			"secrets-closed":    noSecretEcho,
			"secrets-after-run": noSecretEcho,
		},
		NoChild: "the package's TestMain starts two PostgreSQL clusters for every test process (9 s on this machine)",
	}
}

func asConn(c redialtest.Client) *postgres.Conn {
	return c.(*postgres.Conn)
}

// pingUntilBroken is a program's loop body over a *pgx.Conn: a query every
// 100ms, until one fails. ctx ends the loop between queries, never one in
// flight: pgx would close the connection, and hide one the supervisor
// failed to close.
func pingUntilBroken(ctx context.Context, conn *pgx.Conn) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		pctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := conn.Ping(pctx)
		cancel()
		if err != nil {
			return err
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

var pgCases atomic.Int64

// admin is the superuser's connection to the test's cluster.
type admin struct {
	c    *pgtest.Cluster
	mu   sync.Mutex
	conn *pgx.Conn
}

// exec runs stmts, on a new connection when the last one broke (a
// killed cluster). A statement that fails fails t.
func (a *admin) exec(t testing.TB, stmts ...string) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, stmt := range stmts {
		if err := a.run(ctx, func(conn *pgx.Conn) error { _, err := conn.Exec(ctx, stmt); return err }); err != nil {
			t.Errorf("conformance: %s: %v", stmt, err)
			return
		}
	}
}

// pids returns the pids of the sessions whose column (usename, datname)
// is value, but the admin's own.
func (a *admin) pids(t testing.TB, column, value string) []int {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var pids []int
	err := a.run(ctx, func(conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE "+column+" = $1 AND pid <> pg_backend_pid()", value)
		if err != nil {
			return err
		}
		pids, err = pgx.CollectRows(rows, pgx.RowTo[int])
		return err
	})
	if err != nil {
		t.Errorf("conformance: the sessions of %s %s: %v", column, value, err)
	}
	return pids
}

// run runs f on the connection, connecting again once when it is closed.
func (a *admin) run(ctx context.Context, f func(*pgx.Conn) error) error {
	for retry := 0; ; retry++ {
		if a.conn == nil || a.conn.IsClosed() {
			conn, err := pgx.Connect(ctx, a.c.DSN("application_name", "conformance"))
			if err != nil {
				return err
			}
			a.conn = conn
		}
		err := f(a.conn)
		if err == nil || retry == 1 || !a.conn.IsClosed() {
			return err
		}
	}
}

func (a *admin) close() {
	if a.conn != nil {
		_ = a.conn.Close(context.Background())
	}
}

// pgServer is one case's role on the test's cluster.
type pgServer struct {
	t    testing.TB
	a    *admin
	role string

	mu      sync.Mutex
	renamed bool
}

func startPG(t testing.TB, a *admin) *pgServer {
	s := &pgServer{t: t, a: a, role: fmt.Sprintf("conf%d", pgCases.Add(1))}
	a.exec(t, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD 'initial'", s.role))
	t.Cleanup(s.Serve) // the next case finds the database as it was
	return s
}

// Addr is the cluster's address.
func (s *pgServer) Addr() string { return s.a.c.Addr() }

// dsn is the case's URL toward addr, with o.Secrets' password (made the
// role's) or the initial one.
func (s *pgServer) dsn(addr string, o redialtest.Options) string {
	password := "initial"
	if o.Secrets != nil {
		password = o.Secrets.Password
		if err := s.setPassword(password); err != nil {
			s.t.Errorf("conformance: the password of %s: %v", s.role, err)
		}
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(s.role, password), Host: addr, Path: "/" + database,
		RawQuery: url.Values{"application_name": {s.role}}.Encode()}
	return u.String()
}

// beforeConnect calls f and makes the credential it returns the role's
// password and the attempt's, as a token service would.
func (s *pgServer) beforeConnect(f func(context.Context) (string, error)) func(context.Context, *pgconn.Config) error {
	if f == nil {
		return nil
	}
	return func(ctx context.Context, cfg *pgconn.Config) error {
		tok, err := f(ctx)
		if err != nil {
			return err
		}
		if err := s.setPassword(tok); err != nil {
			return errors.New("the token service is down") // the cluster is, and the attempt fails anyway
		}
		cfg.Password = tok
		return nil
	}
}

func (s *pgServer) setPassword(password string) error {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stmt := fmt.Sprintf("ALTER ROLE %s PASSWORD '%s'", s.role, strings.ReplaceAll(password, "'", "''"))
	return s.a.run(ctx, func(conn *pgx.Conn) error { _, err := conn.Exec(ctx, stmt); return err })
}

// renameAway terminates the sessions of the database and renames it, as
// soon as no backend holds it: one that is still logging in holds it for
// a moment even when it is about to be refused, and no event says when
// it let go.
func (s *pgServer) renameAway() {
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for {
		var err error
		s.a.mu.Lock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = s.a.run(ctx, func(conn *pgx.Conn) error {
			if _, err := conn.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"+database+"' AND pid <> pg_backend_pid()"); err != nil {
				return err
			}
			_, err := conn.Exec(ctx, "ALTER DATABASE "+database+" RENAME TO "+database+"_gone")
			return err
		})
		cancel()
		s.a.mu.Unlock()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "55006" { // object_in_use: a backend still holds it
			if err != nil {
				s.t.Errorf("conformance: rename %s: %v", database, err)
			}
			return
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-timeout.C:
			s.t.Errorf("conformance: %s still in use after 10s: %v", database, err)
			return
		}
	}
}

func (s *pgServer) Serve() {
	s.mu.Lock()
	renamed := s.renamed
	s.renamed = false
	s.mu.Unlock()
	s.a.exec(s.t, fmt.Sprintf("ALTER ROLE %s CONNECTION LIMIT -1", s.role))
	if renamed {
		s.a.exec(s.t, "ALTER DATABASE "+database+"_gone RENAME TO "+database)
	}
}

func (s *pgServer) Refuse(permanent bool) {
	if !permanent {
		s.a.exec(s.t, fmt.Sprintf("ALTER ROLE %s CONNECTION LIMIT 0", s.role))
		return
	}
	s.mu.Lock()
	renamed := s.renamed
	s.renamed = true
	s.mu.Unlock()
	if !renamed { // new sessions refused (53300) while the old ones end
		s.a.exec(s.t, fmt.Sprintf("ALTER ROLE %s CONNECTION LIMIT 0", s.role))
		s.renameAway()
	}
	s.a.exec(s.t, fmt.Sprintf("ALTER ROLE %s CONNECTION LIMIT -1", s.role))
}

// CloseConns terminates the role's backends.
func (s *pgServer) CloseConns() {
	s.a.exec(s.t, fmt.Sprintf("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '%s'", s.role))
}

// Open returns how many sessions the role has.
func (s *pgServer) Open() int { return len(s.a.pids(s.t, "usename", s.role)) }

// Send notifies the Listener's channel, from the Listener's database (a
// notification stays in its database).
func (s *pgServer) Send() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.a.c.URL(pgtest.User, s.a.c.Password(), database, "application_name", "conformance"))
	if err != nil {
		s.t.Errorf("conformance: connect to %s: %v", database, err)
		return
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "SELECT pg_notify($1, 'hello')", channel); err != nil {
		s.t.Errorf("conformance: notify: %v", err)
	}
}
