package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsConnError reports whether err, from a query, means its connection can
// no longer be used (call Invalidate): a server error that ends the
// session (class 08, 57P01-57P03, severity FATAL or PANIC), a connection
// pgconn closed, a network error or EOF, a query its context interrupted.
// It is false for SQL errors (57014 included), for errors before anything
// was sent (a context already done, a busy connection) and for nil. For a
// connection in hand conn.IsClosed() tells the same: Invalidate if either
// says so. Whether the query may be sent again is the program's decision.
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
