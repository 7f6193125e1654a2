package postgres

import (
	"context"
	"fmt"
	"iter"

	"github.com/jackc/pgx/v5"

	"github.com/redial-go/redial/supervisor"
)

// Conn is what NewConn returns: the supervisor of one *pgx.Conn, whose
// methods it has, with Do and Connections taking turns. A *pgx.Conn is not
// safe for concurrent use, so the supervisor does not watch it in the
// background, and Do and the Connections loop bodies run one at a time:
// a caller waits its turn until its ctx ends, without a goroutine of its
// own. Conn(ctx) hands the connection out without a turn: a program that
// uses it so keeps every other user off it, Do included, and calls
// Invalidate(conn, err) itself when IsConnError(err) or conn.IsClosed().
// The supervisor closes the connection when Run's context ends: stop
// using it first. Nothing here re-sends a query. Its methods are safe for
// concurrent use; f must not call Do (its turn is taken).
type Conn struct {
	*supervisor.Supervisor[*pgx.Conn]
	turn chan struct{} // capacity 1: full while a Do's f or a loop body runs
}

// Do waits for its turn and a live connection, and runs f with it once.
// When f's error is a connection error (IsConnError) or f left the
// connection closed, it is invalidated and the supervisor reconnects; an
// ordinary SQL error keeps it. The caller's own deadline or cancellation
// is no connection error: pgx closes the connection it interrupted (with
// its default context handler; a cancel-request handler keeps it, and so
// does Do), and Do has it replaced at once (supervisor.ErrReplaced), with
// no Backoff, failure or outage in the Status. Do returns f's error as
// is, or why f did not run: ctx ended while it waited ("conn busy", or no
// connection), or the supervisor stopped or gave up.
func (c *Conn) Do(ctx context.Context, f func(ctx context.Context, conn *pgx.Conn) error) error {
	if err := c.take(ctx); err != nil {
		return err
	}
	defer c.give()
	conn, err := c.Supervisor.Conn(ctx)
	if err != nil {
		return err
	}
	err = f(ctx, conn)
	switch closed := conn.IsClosed(); {
	case callerEnded(ctx, err):
		if closed {
			c.Invalidate(conn, fmt.Errorf("postgres: pgx closed the connection as its caller's context ended a query (%w): %w",
				err, supervisor.ErrReplaced))
		}
	case closed || IsConnError(err):
		c.Invalidate(conn, err)
	}
	return err
}

// Connections yields each live connection once, as the supervisor's
// Connections does, each loop body in its turn: no Do runs meanwhile.
func (c *Conn) Connections(ctx context.Context) iter.Seq[*pgx.Conn] {
	return func(yield func(*pgx.Conn) bool) {
		for conn := range c.Supervisor.Connections(ctx) {
			if !c.serve(ctx, yield, conn) {
				return
			}
		}
	}
}

// serve runs the loop body with conn in its turn; false ends the loop.
func (c *Conn) serve(ctx context.Context, yield func(*pgx.Conn) bool, conn *pgx.Conn) bool {
	if c.take(ctx) != nil {
		return false
	}
	defer c.give()
	return yield(conn)
}

// take waits for the turn until ctx ends.
func (c *Conn) take(ctx context.Context) error {
	select {
	case c.turn <- struct{}{}:
		return nil
	default:
	}
	select {
	case c.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("postgres: conn busy: %w", ctx.Err())
	}
}

func (c *Conn) give() { <-c.turn }
