package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Do acquires a connection from the pool, runs f with it once and
// releases it. When the acquire fails with a connection error, or f with
// one that broke the connection it was given (IsConnError, and pgx closed
// the connection: the server ended the session, the network failed, a
// query was interrupted by its ctx's deadline), the Pool's health goes to
// Backoff at once, with that error, and the pool's connections are
// dropped, as when pings fail: readiness follows the queries, even when
// every connection is busy and none is pinged. Some failures say nothing
// of the database and leave the health alone: an ordinary SQL error (a
// syntax error, a constraint, statement_timeout's 57014), an error of f's
// that left the connection open, a query cancelled by its own ctx
// (context.Canceled: the caller gave up), and an acquire that ended with
// the caller's ctx while it waited for a connection.
//
// Do does not wait for the Pool to be Connected: while it is in Backoff,
// the acquire dials as pgxpool does, so queries work as soon as the
// database does, and the first one that works ends the Backoff wait (the
// Pool pings at once, and readiness follows within that ping's round
// trip). It waits only for the pool to exist (the first attempt
// makes it) and fails at once once the Pool has stopped or given up.
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
		waited := waited(ctx, err)
		err = p.c.t.scrub(err)
		if !waited {
			p.failed(ctx, pool, err)
		}
		return err
	}
	defer conn.Release()
	err = f(ctx, conn)
	if conn.Conn().IsClosed() {
		err = p.c.t.scrub(err)
		p.failed(ctx, pool, err)
		return err
	}
	// The connection is open after f: the database answered (with rows,
	// or with an SQL error), so a Pool in Backoff tries again at once
	// rather than at the end of its wait (supervisor's RetryNow).
	p.sup.RetryNow()
	if err != nil {
		return p.c.t.scrub(err)
	}
	return nil
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

// failed makes the Pool lose pool (Backoff, its connections dropped) when
// err, from Do's acquire or f, says the database or the path to it
// failed: IsConnError, unless it is only the caller's cancellation.
func (p *Pool) failed(ctx context.Context, pool *pgxpool.Pool, err error) {
	if !IsConnError(err) || errors.Is(ctx.Err(), context.Canceled) && errors.Is(err, context.Canceled) {
		return
	}
	p.sup.Invalidate(pool, err) // ignored unless pool is live: Connected, not already lost
}

// waited reports whether an acquire's err is only ctx ending while it
// waited for a connection: a busy pool, or a dial the pings will judge;
// no dial failed.
func waited(ctx context.Context, err error) bool {
	var ce *pgconn.ConnectError
	return ctx.Err() != nil && errors.Is(err, ctx.Err()) && !errors.As(err, &ce)
}
