package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// ErrNotReady is wrapped by Pool.Do's error when the Pool was not
// Connected and PoolOptions.WaitForReady is off: the call did not dial.
var ErrNotReady = errors.New("pool not ready")

// Do acquires a connection, runs f with it once and releases it. It
// acquires only while the Pool is Connected, so that an outage is dialed
// by the supervisor's paced attempts alone, never once per call: in any
// other state it fails at once with an error wrapping ErrNotReady and the
// last error, or, with PoolOptions.WaitForReady, waits for Connected until
// ctx ends. Before the first attempt has ended it waits for its outcome.
// It fails at once after Run ended.
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
	pool, conn, release, err := p.acquire(ctx)
	if err != nil {
		return err
	}
	defer release() // after the connection's: Drain waits for it
	defer conn.Release()
	err = f(ctx, conn)
	switch {
	case !conn.Conn().IsClosed():
		// The database answered: proof it serves, should the Pool have
		// gone Backoff meanwhile. The connection is released first, free
		// for the ping.
		conn.Release()
		p.sup.ReportSuccess()
	case callerEnded(ctx, err):
		p.c.interrupted(conn.Conn().PgConn())
	case IsConnError(err):
		err = p.c.t.scrub(err)
		p.c.lost()
		p.sup.Invalidate(pool, err) // ignored unless pool is live
		return err
	}
	return p.c.t.scrub(err)
}

// acquire acquires a connection of the Connected pool. A call waiting for
// one when the pool is found lost leaves (it would dial once pgxpool
// destroyed the dead one it waited for), to wait again with WaitForReady.
func (p *Pool) acquire(ctx context.Context) (*pgxpool.Pool, *pgxpool.Conn, func(), error) {
	for {
		pool, release, err := p.pool(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		served := p.c.serving()
		actx, stop := context.WithCancel(ctx)
		unhook := context.AfterFunc(served, stop)
		conn, err := pool.Acquire(actx)
		unhook()
		stop()
		if err == nil {
			return pool, conn, release, nil
		}
		release()
		switch {
		case ctx.Err() != nil || served.Err() == nil:
			return nil, nil, nil, p.acquireFailed(ctx, pool, err)
		case !p.c.waitForReady:
			return nil, nil, nil, notReady(p.Status())
		}
	}
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
		p.c.lost()
		p.sup.Invalidate(pool, out)
	}
	return out
}

// pool returns the pool once Connected, held until release (Drain waits
// for it); see Do for the other states.
func (p *Pool) pool(ctx context.Context) (pool *pgxpool.Pool, release func(), err error) {
	for {
		pool, release, err := p.sup.Acquire(p.c.now) // at once: the pool when Connected
		switch {
		case err == nil:
			return pool, release, nil
		case errors.Is(err, supervisor.ErrFailed) || errors.Is(err, supervisor.ErrStopped) || errors.Is(err, supervisor.ErrDraining):
			return nil, nil, err
		case p.c.waitForReady:
			return p.sup.Acquire(ctx)
		}
		st := p.Status()
		if !firstAttempt(st) {
			return nil, nil, notReady(st)
		}
		if err := p.awaitFirst(ctx); err != nil {
			return nil, nil, err
		}
	}
}

// firstAttempt reports whether st is before the first attempt's outcome.
func firstAttempt(st health.Status) bool {
	return (st.State == health.Idle || st.State == health.Connecting) && st.Connects == 0 && st.Failures == 0
}

// awaitFirst waits until the first attempt has ended, or fails as Conn
// does when ctx ends first.
func (p *Pool) awaitFirst(ctx context.Context) error {
	ch, unsubscribe := p.Subscribe()
	defer unsubscribe()
	for {
		select {
		case st, ok := <-ch:
			if !ok || !firstAttempt(st) {
				return nil
			}
		case <-ctx.Done():
			_, err := p.sup.Conn(ctx)
			return err
		}
	}
}

// notReady is Do's error while the Pool is not Connected: the state and
// the last error, already scrubbed.
func notReady(st health.Status) error {
	if st.Err == nil {
		return fmt.Errorf("postgres: %w (%v)", ErrNotReady, st.State)
	}
	return fmt.Errorf("postgres: %w (%v): %w", ErrNotReady, st.State, st.Err)
}

// callerEnded reports whether err is ctx's own end: the caller's deadline
// or cancellation, not the database's failure.
func callerEnded(ctx context.Context, err error) bool {
	return ctx.Err() != nil && errors.Is(err, ctx.Err())
}
