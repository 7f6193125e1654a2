package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsConnError reports whether err, returned by a query on a *pgx.Conn,
// means that connection can no longer be used: the program should then
// call Invalidate on the supervisor, which closes it and reconnects. It is
// true for
//
//   - a server error that ends the session: class 08, 57P01, 57P02, 57P03,
//     or any error of severity FATAL or PANIC (pg_terminate_backend, a
//     server shutdown or crash);
//   - a connection pgconn has closed (pgconn.ErrConnClosed);
//   - a network error, EOF, or a query interrupted by its context while
//     under way: pgconn closes the connection then, because it cannot know
//     where the protocol stands;
//
// and false for ordinary SQL errors (syntax, constraint violation, a
// statement_timeout's 57014), for errors that happened before anything was
// sent (pgconn.SafeToRetry: a context already done, a busy connection) and
// for nil. When in doubt, conn.IsClosed() tells the same for a connection
// in hand: call Invalidate if either says so.
//
// Whether the query itself may be sent again is a different question that
// only the program can answer: see the package documentation.
func IsConnError(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		sev := pg.SeverityUnlocalized
		if sev == "" {
			sev = pg.Severity
		}
		return strings.HasPrefix(pg.Code, "08") || pg.Code == "57P01" || pg.Code == "57P02" || pg.Code == "57P03" ||
			sev == "FATAL" || sev == "PANIC"
	}
	var ne net.Error
	if errors.Is(err, pgconn.ErrConnClosed) || errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return true // a failed write is safe to retry, but pgconn closed the connection
	}
	if pgconn.SafeToRetry(err) {
		return false // nothing was sent; the connection is as it was
	}
	var ce *pgconn.ConnectError
	return pgconn.Timeout(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &ce)
}
