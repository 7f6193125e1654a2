// Package postgres plugs github.com/jackc/pgx/v5 into redial's
// supervisor: a single *pgx.Conn whose users take turns (NewConn), a
// LISTEN/NOTIFY Listener that re-LISTENs after every reconnect and says
// when notifications may have been missed (NewListener), and a *pgxpool.Pool whose health follows a
// bounded Ping and the queries run through Pool.Do (NewPool).
//
// Every constructor takes the DSN first and an options value whose zero
// fields mean the documented defaults:
//
//	s, err := postgres.NewConn(dsn, postgres.ConnOptions{})         // *Conn: a *supervisor.Supervisor[*pgx.Conn]
//	l, err := postgres.NewListener(dsn, postgres.ListenerOptions{}) // *Listener
//	p, err := postgres.NewPool(dsn, postgres.PoolOptions{})         // *Pool
//
// The supervisor settings are nested as Supervisor: supervisor.Options for
// NewConn, which hands out the connection, supervisor.Settings for the
// Listener and the Pool, whose connections stay private. All three offer
// Run, Status, Subscribe, Done, Err, Name and History (they are
// health.HistorySource, for the status page); the default Name is the
// kind and the DSN's target without its secrets, "postgres conn
// postgres://user@host:5432/db" ("postgres listener ...", "postgres pool
// ..."; the hosts of a multi-host DSN joined with commas), so that the
// three kinds on one DSN are told apart in logs, Status, metrics and the
// status page. A bad option is one
// error wrapping supervisor.ErrInvalidOptions that names it once:
// "postgres: PingInterval -1s: negative", "postgres: dsn: empty (...)".
//
// # Several hosts
//
// A DSN may list several hosts (host=h1,h2 port=5432,5433, or
// postgres://u@h1:5432,h2:5433/db): they become the supervisor's
// endpoints (supervisor.Endpoints), named host:port in Status.Endpoint,
// the history and the logs. Each attempt dials one host, the first
// attempt the first, instead of pgx walking the whole list from the first
// host every time: after a failed attempt or a lost connection the next
// host is tried at once, within rand[0, Supervisor.FailoverSpread), and
// the backoff waits once per round, when every host failed since the last
// connection. target_session_attrs is checked on every host dialed (a
// read-only host fails the attempt with read-write, and the next host is
// tried at once); sslmode=prefer's two tries of a host, TLS then plain,
// stay in one attempt. A Pool keeps its one *pgxpool.Pool: every dial of
// it (pings, queries, pgxpool's own) goes to the current host, an attempt
// on another host resets it, and a connection that was dialed to the host
// it left is never handed out. A host that answers 53300 rests until its
// hint has passed while the others are tried. With one host, or with
// target_session_attrs=prefer-standby (which needs every host's answer to
// choose), there is one endpoint and Status.Endpoint is empty.
//
// # Error classes
//
// Classify maps errors by SQLSTATE: a bad password (28P01), a rejected
// authorization (28000) or a missing database (3D000) stop the supervisor
// (Failed; with BeforeConnect set, 28P01 and 28000 are retried: see
// below); too many connections (53300) waits at least
// TooManyConnectionsHint (an option of each constructor); a server
// shutting down, crashed or starting up (57P01, 57P02, 57P03) and
// connection exceptions (class 08) are retried with the backoff. Permanent
// only when every host said so; with BeforeConnect only 3D000: with
// several hosts, each host's last answer since the last connection is
// kept, and one host's "no" is retried (the next host is tried at once)
// until every host's last answer was one, so a primary that refuses
// connections while it restarts, next to a standby that answers 28000, is
// retried; two hosts that both say no end it after two attempts. The
// program's Supervisor.Classify, if set, runs after this package's.
//
// A host's answer is what its server said to the login, whatever the
// sslmode: the TLS try that pgx makes within it (sslmode=prefer, pgx's
// default, tries TLS first and plain after a server without TLS refused
// it; allow tries TLS after a refused plain login) is a step, not an
// answer. So a wrong password against a server without TLS is Failed at
// the first attempt with a DSN that says nothing of sslmode too. With
// sslmode=require (or verify-ca, verify-full) against a server without
// TLS, or a certificate that fails, the refusal is the answer: retried,
// since the server may yet be configured, and the login was never tried.
// The step stays in the error's text.
//
// IsConnError tells a query error that broke the connection from an
// ordinary SQL error: Conn.Do invalidates the connection only then, and
// Pool.Do makes the Pool's health Backoff only then. A caller's own
// deadline or cancellation is never a connection loss in either Do: pgx
// closes the connection it interrupted (its default context handler), a
// Pool drops it and goes on, a Conn replaces it at once
// (supervisor.ErrReplaced: Connecting, then Connected, with no Backoff and
// no failure or outage in its Status).
//
// # Pool health and Pool.Do
//
// A Pool's health says whether it can serve a query. It goes Backoff when
// a ping, or a query through Pool.Do over an existing connection, fails
// with a connection error, or a dial fails while no connection works
// (with several hosts, the next host is tried); then its connections are
// dropped. A dial of one more connection that fails while others work
// (53300 from a full server, refused, timed out) is that dial's failure:
// the query or ping that needed it fails, the health stays Connected and
// the working connections stay. A query its caller gave up on (deadline or
// cancellation) is not a failure either: pgx closes that connection,
// pgxpool drops it, and the Pool pings soon. Pool.Do does not wait for
// Connected: while the Pool is in Backoff its queries dial, so they work
// as soon as the database does, and the first that works ends the Backoff
// wait, even one a 53300 hint set: it proves the server serves again
// (supervisor's Proven). Its errors are safe to log (see Secrets).
//
// # Conn.Do
//
// A *pgx.Conn serves one caller at a time: Conn.Do and the bodies of
// Conn.Connections take turns, each caller waiting until its ctx ends,
// without a goroutine of its own ("postgres: conn busy" when it ends).
//
// # Per-attempt credentials
//
// Every constructor's options have BeforeConnect, a hook called before
// every dial of every connection (a Pool's background dials included)
// with the copy of the parsed config that dial uses, whose Host and Port
// are those of the one host it dials: the place to set a rotating
// password or an IAM authentication token (which may depend on the host)
// in cfg.Password. With it set, a login refused with 28P01 or 28000 is
// retried with the backoff instead of given up on, since the next attempt
// may carry new credentials, and a Pool keeps its *pgxpool.Pool
// throughout; the passwords it sets are masked like the DSN's. An error
// from it fails that attempt (or that dial of a Pool), retried unless it
// is backoff.Permanent.
//
// # Secrets
//
// The DSN's password, and any BeforeConnect set, never reaches an error,
// a log line, a Status or a readiness body, nor the default Name, in URL
// or key=value form, even when the DSN is malformed. pgx's own redaction
// is best-effort, and a *pgconn.ConnectError carries the whole parsed
// Config, password included: every error this package returns (Pool.Do's
// included), yields or stores is one with redacted text that no longer
// holds it, though it still answers errors.As for *pgconn.PgError (every
// host's) and errors.Is for network and context errors. Errors from
// queries run on a *pgxpool.Pool directly (pool.Exec, pool.Query) come
// from pgx: pass them through SafeError before logging or storing them;
// SafeError masks the passwords their ConnectErrors hold and keeps every
// host's *pgconn.PgError, network and context errors in the chain.
// Endpoint names are host:port, from the parsed config, never a secret.
//
// # Retries stay the program's decision
//
// Nothing here re-sends a query. After a connection error the supervisor
// reconnects; whether the failed statement may run again is for the
// program to decide, because only it knows whether the statement is
// idempotent. pgconn.SafeToRetry(err) does not settle it: it is pgconn's
// belief that the failed call sent nothing, not a promise about what the
// server received (it is true, for instance, for "conn busy" while an
// earlier statement still runs on the server; jackc/pgx#2428), and a
// statement whose result was lost with its connection may well have been
// executed and committed.
//
// # Listener
//
// A Listener owns a dedicated connection. It runs LISTEN for its channels
// on every connect, and Listen adds one at runtime (interrupting the wait
// for notifications, which pgconn survives, running LISTEN and resuming).
// Notifications is an iterator over the notifications, in order, for one
// consumer at a time; they wait in a bounded buffer, and while the program
// is slow the Listener stops reading and the server queues them, so memory
// stays bounded. After every reconnect, once the channels are LISTENed
// again, it yields one error wrapping ErrMissed, saying why the connection
// was lost: notifications sent while it was disconnected are lost, so the
// program re-reads the state they describe. The loop ends when its ctx
// ends or the Listener is done (Stopped or Failed), after the
// notifications already received; it never spins.
//
// # A silent path
//
// A path that stops forwarding without closing (a dead NAT entry, a
// stalled proxy) is found within 15s with the defaults: a Listener pings
// after PingInterval (10s) of silence and gives the ping PingTimeout (3s);
// a Pool pings every PingInterval (5s), and soon after a caller gave up
// on a query, twice within PingTimeout (3s) each before it says lost. A
// Pool whose every connection is busy is not pinged: its queries tell,
// when they fail, or when their callers give up on them and the freed
// connections let a ping through. An attempt on a stalled path fails at the supervisor's
// ConnectTimeout (10s by default); the Listener's and the Pool's connects
// fail at PingTimeout already.
//
// Nothing outlives the outage it was made in: unless the DSN sets
// connect_timeout, every dial and login is bounded (the Conn's by
// Supervisor.ConnectTimeout, the Listener's and the Pool's by the shorter
// of it and PingTimeout), pgxpool's background dials and pgconn's cancel
// requests included, and a connection found dead gets a second, not
// pgconn's 15s, to be cleaned up, so it holds no pool slot. Once the path
// heals, every kind is healthy again within one backoff delay, plus, when
// the connections of the outage stay dead (a dropped NAT entry), the rest
// of the attempt that was under way.
package postgres
