package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Do acquires a connection from the pool, runs f with it once and
// releases it. The Pool's health goes to Backoff at once, with the error,
// when the pool can serve no query: a query over an existing connection
// failed with a connection error (IsConnError, and pgx closed the
// connection: the server ended the session, the network failed), or the
// acquire failed to dial while the pool holds no working connection. The
// pool's connections are then dropped, as when pings fail.
//
// Other failures say nothing of whether the Pool can serve and leave the
// health alone: a dial of one more connection refused (53300), timed out
// or failed while other connections work (that query fails with it); an
// ordinary SQL error (a syntax error, a constraint, statement_timeout's
// 57014); an error of f's that left the connection open; and the
// caller's own deadline or cancellation, during the acquire or the query.
// A connection whose query the caller's ctx interrupted is handled as pgx
// handles it: pgx closes it and pgxpool drops it (its cleanup gets a
// second at most), and the Pool pings soon to see whether the database
// answers.
//
// Do does not wait for the Pool to be Connected: while it is in Backoff,
// the acquire dials as pgxpool does, so queries work as soon as the
// database does, and the first one that works ends the Backoff wait, a
// server's 53300 hint too (supervisor's Proven): the Pool pings at once,
// and readiness follows within that ping's round trip. It waits only for
// the pool to exist (the first attempt makes it) and fails at once once
// the Pool has stopped or given up.
//
// The error is f's or the acquire's, safe to log or store: its text has
// the secrets masked, and a *pgconn.ConnectError (whose Config holds the
// password) is not in its chain, though errors.As still finds the
// server's *pgconn.PgError (see SafeError). Do never calls f twice;
// whether f may run again is the program's decision.
func (p *Pool) Do(ctx context.Context, f func(ctx context.Context, conn *pgxpool.Conn) error) error {
	pool, err := p.pool(ctx)
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return p.acquireFailed(ctx, pool, err)
	}
	defer conn.Release()
	err = f(ctx, conn)
	switch {
	case !conn.Conn().IsClosed():
		// The database answered (with rows, or with an SQL error): proof
		// that a Pool in Backoff can serve, so it pings at once, with
		// this connection free for the ping.
		conn.Release()
		p.sup.Proven()
	case callerEnded(ctx, err):
		p.c.interrupted(conn.Conn().PgConn())
	case IsConnError(err):
		err = p.c.t.scrub(err)
		p.sup.Invalidate(pool, err) // ignored unless pool is live: Connected, not already lost
		return err
	}
	if err != nil {
		return p.c.t.scrub(err)
	}
	return nil
}

// acquireFailed returns the scrubbed err of an acquire, after making the
// Pool lose pool when that says the pool can serve nothing: a dial failed
// and no connection works, or another connection error.
func (p *Pool) acquireFailed(ctx context.Context, pool *pgxpool.Pool, err error) error {
	dial := dialFailed(err)
	out := p.c.t.scrub(err)
	switch {
	case callerEnded(ctx, err): // a busy pool, or a dial the caller gave up on
	case dial && p.c.dials.working() > 0: // one more connection: that dial's failure
	case dial || IsConnError(err):
		p.sup.Invalidate(pool, out)
	}
	return out
}

// pool returns the pool: at once once the first attempt has made it,
// else once the Pool is Connected. It fails when ctx ends first, or when
// the Pool has stopped or given up.
func (p *Pool) pool(ctx context.Context) (*pgxpool.Pool, error) {
	select {
	case <-p.c.made:
		select {
		case <-p.sup.Done():
			return p.sup.Conn(ctx) // fails at once: stopped, or gave up
		default:
			return p.c.pool, nil
		}
	default:
		return p.sup.Conn(ctx)
	}
}

// callerEnded reports whether err is ctx's own end: the caller's deadline
// or cancellation, not the database's failure.
func callerEnded(ctx context.Context, err error) bool {
	return ctx.Err() != nil && errors.Is(err, ctx.Err())
}

// dialFailed reports whether err, an acquire's or a ping's, is the failure
// to make a connection (pgx's *pgconn.ConnectError, or BeforeConnect's
// error) rather than of a query over one.
func dialFailed(err error) bool {
	var ce *pgconn.ConnectError
	var he *hookError
	return errors.As(err, &ce) || errors.As(err, &he)
}
