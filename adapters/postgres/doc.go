// Package postgres plugs github.com/jackc/pgx/v5 into redial's
// supervisor: a single *pgx.Conn (NewConn), a LISTEN/NOTIFY Listener that
// re-LISTENs after every reconnect and says when notifications may have
// been missed (NewListener), and a *pgxpool.Pool whose health follows a
// bounded Ping (NewPool).
//
// # Error classes
//
// Classify maps errors by SQLSTATE: a bad password (28P01), a rejected
// authorization (28000) or a missing database (3D000) stop the supervisor
// at once (Failed); too many connections (53300) waits at least
// Options.TooManyConnectionsHint; a server shutting down, crashed or
// starting up (57P01, 57P02, 57P03) and connection exceptions (class 08)
// are retried with the backoff. IsConnError tells a query error that broke
// the connection (call Invalidate) from an ordinary SQL error.
//
// # Secrets
//
// The DSN's password never reaches an error, a log line, a Status or a
// readiness body, in URL or key=value form, even when the DSN is
// malformed. pgx's own redaction is best-effort, and a *pgconn.ConnectError
// carries the whole parsed Config, password included: what this package
// returns and stores is an error with redacted text that no longer holds
// it, though it still answers errors.As for *pgconn.PgError.
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
// Notifications are delivered in order on a bounded channel (Events);
// while the program is slow the Listener stops reading and the server
// queues them, so memory stays bounded. After every reconnect, once the
// channels are LISTENed again, it delivers one Event with Missed set:
// notifications sent while it was disconnected are lost, so the program
// re-reads the state they describe.
package postgres
