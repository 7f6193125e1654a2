package postgres_test

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// selectOne runs SELECT 1 on conn.
func selectOne(ctx context.Context, conn *pgxpool.Conn) error {
	var one int
	return conn.QueryRow(ctx, "SELECT 1").Scan(&one)
}

// TestPoolDoLosesThePoolOnAConnectionError restarts the server (fast
// mode) under a query that holds a connection: the query fails, and Do
// makes the Pool Backoff at once with its error, though no ping (an hour
// apart) could have seen the restart; then the Pool is Connected again,
// with the same pool.
func TestPoolDoLosesThePoolOnAConnectionError(t *testing.T) {
	t.Parallel()
	c := pgtest.Start(t, pgtest.Options{})
	p := newPool(t, c, "pool-do-restart", newPingCounter(), postgres.PoolOptions{PingInterval: time.Hour})
	testkit.Run(t, p)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	pool, err := p.Sup().Conn(ctx)
	require.NoError(t, err)
	rec := testkit.Record(p)

	late := testkit.MeasureLateness(t)
	var failed time.Time
	err = p.Do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		require.NoError(t, selectOne(ctx, conn))
		c.Restart(t, pgtest.Fast) // the server is back before Restart returns
		err := selectOne(ctx, conn)
		failed = time.Now()
		return err
	})
	require.Error(t, err)
	require.True(t, postgres.IsConnError(err), "a restart ends the session: %v", err)
	st := testkit.WaitStatus(t, p, 5*time.Second, "backoff", func(st health.Status) bool { return st.State != health.Connected })
	assert.Equal(t, health.Backoff, st.State)
	// The Invalidate's hand-over to the supervisor and its publishing wake
	// up as late as the machine makes them.
	assert.Less(t, st.Since.Sub(failed), late.Bound(0, 100*time.Millisecond, 2), "the Pool left Connected %v after the query failed", st.Since.Sub(failed))
	assert.ErrorContains(t, st.Err, err.Error(), "the lost reason is the query's error")
	testkit.WaitStatus(t, p, 10*time.Second, "connected again", testkit.InState(health.Connected))
	assert.Equal(t, []health.State{health.Backoff, health.Connecting, health.Connected}, rec.Stop()[1:])
	same, err := p.Sup().Conn(ctx)
	require.NoError(t, err)
	assert.Same(t, pool, same)
	require.NoError(t, p.Do(ctx, selectOne))
}

// TestPoolDoKeepsTheHealthOnOtherErrors: an SQL error, a query its caller
// cancelled and a network error of f's own that left the connection open
// say nothing of the database: the Pool stays Connected. Do's errors are
// f's, as they were.
func TestPoolDoKeepsTheHealthOnOtherErrors(t *testing.T) {
	p := newPool(t, shared, "pool-do-keep", newPingCounter(), postgres.PoolOptions{PingInterval: time.Hour})
	testkit.Run(t, p)
	testkit.WaitStatus(t, p, 10*time.Second, "connected", testkit.InState(health.Connected))
	rec := testkit.Record(p)
	ctx := t.Context()

	err := p.Do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		_, err := conn.Exec(ctx, "SELEC 1")
		return err
	})
	var pg *pgconn.PgError
	require.ErrorAs(t, err, &pg)
	assert.Equal(t, "42601", pg.Code)

	cctx, cancel := context.WithCancel(ctx)
	err = p.Do(cctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := conn.Exec(ctx, "SELECT pg_sleep(5)")
		return err
	})
	require.ErrorIs(t, err, context.Canceled)
	require.True(t, postgres.IsConnError(err), "pgx closed the connection: %v", err)

	elsewhere := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED} // another service of f's refused
	require.True(t, postgres.IsConnError(elsewhere))
	assert.ErrorIs(t, p.Do(ctx, func(context.Context, *pgxpool.Conn) error { return elsewhere }), syscall.ECONNREFUSED)

	sentinel := errors.New("the program's own")
	assert.Same(t, sentinel, p.Do(ctx, func(context.Context, *pgxpool.Conn) error { return sentinel }), "f's error, as it is: it holds no secret")

	require.NoError(t, p.Do(ctx, selectOne))
	assert.Equal(t, []health.State{health.Connected}, rec.Stop(), "an error that says nothing of the database changed the health")
	assert.EqualValues(t, 1, p.Status().Connects)

	stopped, err := postgres.NewPool(shared.DSN(), postgres.PoolOptions{})
	require.NoError(t, err)
	stop := testkit.Run(t, stopped)
	testkit.WaitStatus(t, stopped, 10*time.Second, "connected", testkit.InState(health.Connected))
	require.NoError(t, stop())
	assert.ErrorIs(t, stopped.Do(ctx, selectOne), supervisor.ErrStopped, "Do after Run returned")
}

// TestPoolReadinessFollowsTheQueriesAcrossAStop stops the server for 2s
// under a Pool with pings 5s apart and a query every 20ms through Do:
// readiness must turn 503 with the first failing query (not at the next
// ping), and no query may work before readiness is 200 again: Do does not
// dial while the Pool is not Connected. The figures are logged: how long
// readiness lagged behind the queries, each way.
func TestPoolReadinessFollowsTheQueriesAcrossAStop(t *testing.T) {
	t.Parallel()
	late := testkit.MeasureLateness(t)
	c := pgtest.Start(t, pgtest.Options{})
	p, err := postgres.NewPool(c.DSN("application_name", "pool-readiness"), postgres.PoolOptions{
		Supervisor: supervisor.Settings{Backoff: backoff.Config{Base: time.Second, Cap: 2 * time.Second}},
	})
	require.NoError(t, err)
	testkit.Run(t, p)
	testkit.WaitStatus(t, p, 10*time.Second, "connected", testkit.InState(health.Connected))
	tl := make(chan health.Status, 64)
	ch, unsub := p.Subscribe()
	go func() {
		defer close(tl)
		for st := range ch {
			tl <- st
		}
	}()
	defer func() {
		unsub()
		for range tl { // until the forwarding goroutine is done
		}
	}()

	var firstFail, firstOK time.Time
	query := func() error {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		return p.Do(ctx, selectOne)
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	c.Stop(t, pgtest.Fast)
	stopped := time.Now()
	restarted := false
	for ; firstOK.IsZero(); <-tick.C {
		err := query()
		switch {
		case err != nil && firstFail.IsZero():
			firstFail = time.Now()
		case err == nil && restarted:
			firstOK = time.Now()
		}
		if !restarted && time.Since(stopped) > 2*time.Second {
			c.Start(t)
			restarted = true
		}
		require.Less(t, time.Since(stopped), 30*time.Second, "no query worked after the start")
	}
	var left, ready health.Status
	deadline := time.NewTimer(supervisor.DefaultConnectTimeout + time.Minute)
	defer deadline.Stop()
	for ready.Since.IsZero() {
		select {
		case st := <-tl:
			if st.State != health.Connected && left.Since.IsZero() {
				left = st
			}
			if st.State == health.Connected && !left.Since.IsZero() {
				ready = st
			}
		case <-deadline.C:
			if left.Since.IsZero() {
				t.Fatal("readiness stayed 200 while the queries failed")
			}
			t.Fatal("readiness never turned 200 again")
		}
	}
	t.Logf("readiness 503 %v after the first failing query; 200 %v before the first query that worked",
		left.Since.Sub(firstFail).Round(time.Millisecond), firstOK.Sub(ready.Since).Round(time.Microsecond))
	assert.Less(t, left.Since.Sub(firstFail), late.Bound(0, 100*time.Millisecond, 2), "readiness stayed 200 while queries failed") // as in TestPoolDoLosesThePool...
	assert.False(t, ready.Since.After(firstOK), "a query worked %v before readiness was 200 again", ready.Since.Sub(firstOK))
}

// TestPoolDoErrorsHoldNoPassword: an acquire that fails to dial gives pgx
// a *pgconn.ConnectError whose Config holds the password; Do's error has
// none of it, and SafeError makes pgxpool's own errors as safe, keeping
// what tells them apart (the refused dial, the server's SQLSTATE).
func TestPoolDoErrorsHoldNoPassword(t *testing.T) {
	const password = "Zq8-pool-secret"
	dsn := "postgres://app:" + password + "@127.0.0.1:1/db?sslmode=disable" // nothing listens on port 1
	p, err := postgres.NewPool(dsn, postgres.PoolOptions{Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	testkit.Run(t, p)
	testkit.WaitStatus(t, p, 10*time.Second, "backoff", testkit.InState(health.Backoff)) // the pool exists
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	err = p.Do(ctx, selectOne)
	require.Error(t, err)
	var ce *pgconn.ConnectError
	assert.False(t, errors.As(err, &ce), "Do's error holds a *pgconn.ConnectError: %v", err)
	assert.False(t, holds(err, password), "the password is reachable from Do's error")
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	assert.True(t, postgres.IsConnError(err))

	raw, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	defer raw.Close()
	_, rawErr := raw.Exec(ctx, "SELECT 1")
	require.ErrorAs(t, rawErr, &ce)
	require.True(t, holds(rawErr, password), "pgxpool's error holds the password (this test's premise)")
	safe := postgres.SafeError(rawErr)
	assert.False(t, errors.As(safe, &ce))
	assert.False(t, holds(safe, password), "the password is reachable from SafeError's result")
	assert.Equal(t, rawErr.Error(), safe.Error())
	assert.ErrorIs(t, safe, syscall.ECONNREFUSED)

	bad, err := pgxpool.New(ctx, shared.URL(pgtest.User, badPassword, "postgres"))
	require.NoError(t, err)
	defer bad.Close()
	_, rawErr = bad.Exec(ctx, "SELECT 1")
	require.True(t, holds(rawErr, badPassword))
	safe = postgres.SafeError(rawErr)
	assert.False(t, holds(safe, badPassword))
	var pg *pgconn.PgError
	require.ErrorAs(t, safe, &pg)
	assert.Equal(t, "28P01", pg.Code)
	assert.NoError(t, postgres.SafeError(nil))
	plain := errors.New("plain")
	assert.ErrorIs(t, postgres.SafeError(plain), plain, "other chains are kept")
}
