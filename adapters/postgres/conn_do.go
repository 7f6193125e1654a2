package postgres

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/supervisor"
)

// Conn is what NewConn returns: the supervisor of one *pgx.Conn, with its
// Run, Status, Subscribe, Done, Err, Name, History and RetryNow. A
// *pgx.Conn is not safe for concurrent use, so Do, the Connections loop
// bodies and the supervisor's Close take turns: a caller waits for its
// turn until its ctx ends, without a goroutine of its own. The connection
// is not watched in the background: the queries find it broken. Its
// methods are safe for concurrent use; f must not call Do.
type Conn struct {
	lifecycle[*pgx.Conn]
	sup  *supervisor.Supervisor[*pgx.Conn]
	turn chan struct{} // capacity 1: full while f, a loop body or Close runs
	role role
}

// Do waits for a live connection and its turn, and runs f with it once.
// When f's error is a connection error (IsConnError) or f left the
// connection closed, it is invalidated, as is one on a server of the
// wrong role (ErrWrongRole); an SQL error keeps it. The
// caller's own deadline or cancellation is no connection error: pgx sends
// a cancel request and the connection is kept (the health does not follow
// the program's timeouts); the error then wraps ctx's error too. A
// connection pgx closed all the same (no answer within 3s, or a
// Configure that set pgx's closing watcher back) is replaced at once
// (supervisor.ErrReplaced: no Backoff, failure or outage). Otherwise Do
// returns f's error as is, or why f did not run.
func (c *Conn) Do(ctx context.Context, f func(ctx context.Context, conn *pgx.Conn) error) error {
	for {
		conn, release, err := c.sup.Acquire(ctx) // held: Drain waits for f
		if err != nil {
			return err
		}
		ran, err := c.turnWith(ctx, conn, func() error { return c.run(ctx, conn, f) })
		release()
		if ran || err != nil {
			return err
		}
	}
}

// run runs f with conn in its turn and invalidates conn when f broke it.
func (c *Conn) run(ctx context.Context, conn *pgx.Conn, f func(ctx context.Context, conn *pgx.Conn) error) error {
	err := f(ctx, conn)
	if cancelled(ctx, err) {
		err = fmt.Errorf("postgres: query cancelled: %w: %w", ctx.Err(), err)
	}
	switch closed := conn.IsClosed(); {
	case callerEnded(ctx, err):
		if closed {
			c.sup.Invalidate(conn, fmt.Errorf("postgres: pgx closed the connection as its caller's context ended a query (%w): %w",
				err, supervisor.ErrReplaced))
		}
	case closed || IsConnError(err):
		c.sup.Invalidate(conn, err)
	}
	return err
}

// Connections yields each live connection once, as the supervisor's
// Connections does, each loop body in its turn.
func (c *Conn) Connections(ctx context.Context) iter.Seq[*pgx.Conn] {
	return func(yield func(*pgx.Conn) bool) {
		for conn := range c.sup.Connections(ctx) {
			more := true
			ran, err := c.turnWith(ctx, conn, func() error { more = yield(conn); return nil })
			if err != nil || ran && !more {
				return
			}
		}
	}
}

// turnWith runs f in the turn unless conn was closed before it came, when
// it invalidates conn and reports that f did not run (ran false, err
// nil). err is why the turn did not come, or f's. A server that f's
// round trips showed to be of the wrong role invalidates conn too.
func (c *Conn) turnWith(ctx context.Context, conn *pgx.Conn, f func() error) (ran bool, err error) {
	select {
	case c.turn <- struct{}{}:
	default:
		select {
		case c.turn <- struct{}{}:
		case <-ctx.Done():
			return false, fmt.Errorf("postgres: conn busy: %w", ctx.Err())
		}
	}
	defer func() { <-c.turn }()
	if conn.IsClosed() { // the supervisor closed it, or a query broke it
		c.sup.Invalidate(conn, pgconn.ErrConnClosed)
		return false, nil
	}
	err = f()
	if wrong := c.role.misplaced(conn.PgConn()); wrong != nil {
		c.sup.Invalidate(conn, wrong) // see ErrWrongRole
	}
	return true, err
}

// Invalidate tells the supervisor that conn, which Do or Connections
// handed out, failed: err is the reason shown in Status. The connection is
// closed in its turn and dialed again. See supervisor.Supervisor.Invalidate.
func (c *Conn) Invalidate(conn *pgx.Conn, err error) { c.sup.Invalidate(conn, err) }

// cancelled reports whether err is the server's answer to the cancel
// request ctx's end made (SQLSTATE 57014), not yet ctx's own error.
func cancelled(ctx context.Context, err error) bool {
	var pg *pgconn.PgError
	return ctx.Err() != nil && !errors.Is(err, ctx.Err()) && errors.As(err, &pg) && pg.Code == "57014"
}
