// Package postgres plugs github.com/jackc/pgx/v5 into redial's supervisor:
// one *pgx.Conn whose users take turns (NewConn), a LISTEN/NOTIFY Listener
// that re-LISTENs after every reconnect and says when notifications may
// have been missed (NewListener), and a *pgxpool.Pool whose health says
// whether it can serve a query (NewPool).
//
//	c, err := postgres.NewConn(dsn, postgres.ConnOptions{})         // *Conn
//	l, err := postgres.NewListener(dsn, postgres.ListenerOptions{}) // *Listener
//	p, err := postgres.NewPool(dsn, postgres.PoolOptions{})         // *Pool
//
// Each offers its supervisor's Run, Status, Subscribe, Done, Err, Name,
// History and RetryNow; the connection itself only through Do (and a
// Conn's Connections), which keep the adapter's rules. Its settings are
// Options.Supervisor, a supervisor.Settings, with OnConnect beside it for
// NewConn, which hands out its connection. The
// default Name is the kind and the DSN's target without its secrets
// ("postgres pool postgres://app@h1:5432,h2:5433/db"), so that the kinds
// on one DSN are told apart. A bad option is one error wrapping
// supervisor.ErrInvalidOptions: "postgres: PingInterval -1s: negative".
//
// # Several hosts
//
// The hosts of a DSN (host=h1,h2 or postgres://u@h1,h2/db) are the
// supervisor's endpoints, named host:port: each attempt dials one, the
// next at once after a failure, and the backoff waits once per round.
// sslmode=prefer's two tries of a host stay in one attempt. A Pool's every
// dial goes to the current host, and moving resets the pool. With
// target_session_attrs=prefer-standby, which needs every host's answer,
// there is one endpoint.
//
// # Server roles
//
// pgx checks target_session_attrs (read-write, read-only, primary,
// standby) only at connect. A server whose role changes under a live
// connection is left too: a primary fenced read-only (every write answers
// SQLSTATE 25006) or a standby promoted. PostgreSQL 14 and later report
// default_transaction_read_only and in_hot_standby with the answer to the
// next statement: a Conn checks after every Do, a Pool on every release
// and every dial, a Listener at every ping (at least every PingInterval,
// since a fenced primary still delivers NOTIFY). The connection, or the
// whole pool with its idle connections, is replaced (ErrWrongRole) and
// the next host tried; the pool's dials go there alone. On B within, from
// A's fence: the next write, FailoverSpread and a login or two (a
// Listener: PingInterval first). Measured (6 runs, -race, two busy cores,
// defaults, host=A,B read-write) from A's fence, and from its fast stop,
// to the first write on B: Conn 0.68-1.17s (0.43-0.93s), Pool
// 0.57-0.95s (0.43-0.96s); to the Listener's first notification from B
// 4.8-6.4s (0.73-1.09s). A program's own READ ONLY transaction changes
// no report and keeps its connection; prefer-standby, any and servers
// before 14 have no rule.
//
// # Error classes
//
// Classify maps errors by SQLSTATE: 28P01, 28000 and 3D000 are permanent
// (Failed) only when every host's last answer was one of them (with
// BeforeConnect, only 3D000: new credentials may come); 53300 waits at
// least TooManyConnectionsHint; 57P01-57P03, class 08 and network errors
// are retried with the backoff. A TLS try that pgx makes within one answer
// (sslmode=prefer against a server without TLS) is a step, not an answer:
// a wrong password is Failed at the first attempt whatever the sslmode.
// The program's Supervisor.Classify runs after this package's.
//
// IsConnError tells an error that broke the connection from an SQL error:
// Conn.Do invalidates, and Pool.Do makes the Pool Backoff, only then. A
// caller's own deadline or cancellation is never a connection loss: a
// Conn cancels the query and keeps its connection. While a Pool is not
// Connected its Do dials nothing (ErrNotReady, or PoolOptions.WaitForReady).
//
// # Credentials and secrets
//
// BeforeConnect, in every kind's options, is called before every dial with
// the config it uses: the place for a rotating password or an IAM token.
// The DSN's password and every one BeforeConnect set never reach an error,
// a log line, a Status or a Name, in any form: every error this package
// returns or records has its text masked and keeps in its chain only what
// holds no secret (each host's *pgconn.PgError, network and context
// errors). Errors from queries run on a *pgxpool.Pool directly go through
// SafeError before they are logged.
//
// Nothing here re-sends a query: whether a statement whose connection
// died may run again is the program's decision (pgconn.SafeToRetry does
// not settle it: jackc/pgx#2428).
//
// # A silent path
//
// A Listener pings after PingInterval (5s) without a notification; a Pool
// pings every PingInterval, twice before it says lost; each ping waits
// PingTimeout (3s), and one left unanswered wraps supervisor.ErrSilent. A
// Conn is not watched: its queries find a broken connection. Every dial,
// login and cancel request is bounded (see each constructor), and a
// connection found dead gets a second, not pgconn's 15s, to be cleaned up.
package postgres
