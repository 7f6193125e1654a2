package postgres

import (
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// keepOnCancel is a Conn's context watcher: a query its caller's ctx
// interrupts is cancelled by a cancel request, and the connection kept,
// rather than closed, which would make the Conn replace it and readiness
// follow the program's timeouts. A server that has not answered within
// DefaultPingTimeout (a loaded one may take a second to serve the cancel,
// or receive it before the query and run that to its end) has its
// connection closed, as pgx's default does at once.
func keepOnCancel(pc *pgconn.PgConn) ctxwatch.Handler {
	return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: DefaultPingTimeout}
}
