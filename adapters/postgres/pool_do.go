package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Do acquires a connection, runs f with it once and releases it. It does
// not wait for Connected: in Backoff the acquire dials, and the first
// query that works ends the Backoff wait, a 53300 hint's too
// (supervisor's ReportSuccess). It waits only for the first attempt to make the
// pool, and fails at once after Run ended.
//
// The Pool goes Backoff, and drops its connections, only when it can
// serve no query: f failed with a connection error (IsConnError) over an
// existing connection, or the acquire failed to dial while no connection
// works. A dial of one more connection that fails while others work, an
// SQL error, and the caller's own deadline or cancellation leave the
// health alone; pgx closes a connection whose query ctx interrupted, and
// the Pool pings soon.
//
// The error is f's or the acquire's, safe to log (see SafeError). Do
// never calls f twice.
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
		// The database answered: proof that a Pool in Backoff can serve.
		// The connection is released first, free for the ping.
		conn.Release()
		p.sup.ReportSuccess()
	case callerEnded(ctx, err):
		p.c.interrupted(conn.Conn().PgConn())
	case IsConnError(err):
		err = p.c.t.scrub(err)
		p.sup.Invalidate(pool, err) // ignored unless pool is live
		return err
	}
	return p.c.t.scrub(err)
}

// acquireFailed returns the scrubbed err of an acquire, after making the
// Pool lose pool when a dial failed and no connection works, or on
// another connection error.
func (p *Pool) acquireFailed(ctx context.Context, pool *pgxpool.Pool, err error) error {
	dial := dialFailed(err)
	out := p.c.t.scrub(err)
	switch {
	case callerEnded(ctx, err):
	case dial && p.c.dials.working() > 0:
	case dial || IsConnError(err):
		p.sup.Invalidate(pool, out)
	}
	return out
}

// pool returns the pool once the first attempt made it, else once
// Connected; it fails when ctx ends first or Run has ended.
func (p *Pool) pool(ctx context.Context) (*pgxpool.Pool, error) {
	select {
	case <-p.c.made:
		select {
		case <-p.sup.Done():
			return p.sup.Conn(ctx) // fails at once
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
