package postgres_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// TestPoolKeepsServingWhenOneMoreDialIsRefused: a Pool (pool_max_conns=5,
// pings every 20ms) holds two or three working connections on a server
// whose other slots are then taken. While queries keep two of them busy,
// the pings need one more connection, whose dial the server refuses with
// 53300 (twice, at least); then one query more than the Pool holds at
// once needs one too.
// Each refusal is that dial's: the query that needed it fails with it,
// the others work, the Pool stays Connected throughout (readiness 200)
// and keeps its connections (the same backends). The time from the first
// refusal to ready again is logged (zero: it never left).
func TestPoolKeepsServingWhenOneMoreDialIsRefused(t *testing.T) {
	t.Parallel()
	c := pgtest.Start(t, pgtest.Options{Settings: map[string]string{"max_connections": "6", "superuser_reserved_connections": "0"}})
	admin := c.Connect(t)
	pings := newPingCounter()
	p, err := postgres.NewPool(c.DSN("application_name", "burst", "pool_max_conns", "5"), postgres.PoolOptions{
		PingInterval: 20 * time.Millisecond, Configure: pings.configure, Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	testkit.Run(t, p)
	testkit.WaitStatus(t, p, 10*time.Second, "connected", testkit.InState(health.Connected))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sleep := func(d string) func(ctx context.Context, conn *pgxpool.Conn) error {
		return func(ctx context.Context, conn *pgxpool.Conn) error {
			_, err := conn.Exec(ctx, "SELECT pg_sleep("+d+")")
			return err
		}
	}
	// Two queries at once make the pool dial a second connection.
	var held sync.WaitGroup
	for range 2 {
		held.Go(func() { assert.NoError(t, p.Do(ctx, sleep("0.2"))) })
	}
	held.Wait()
	working := backendPIDs(t, admin, "burst")
	require.GreaterOrEqual(t, len(working), 2)
	fillers := fill(t, c)
	t.Logf("server full: %d pool connections, %d others", len(working), fillers+1)
	rec := testkit.Record(p)
	first := time.Now()

	// The pings' dials, while every connection the server allows the Pool
	// is busy: each query holds its connection until two pings failed. A
	// query that found a connection held by a ping dials, is refused, and
	// tries again: refusals are 53300, and the health never changes.
	release, inside := make(chan struct{}), make(chan struct{}, len(working))
	var busy sync.WaitGroup
	for range working {
		busy.Go(func() {
			for {
				err := p.Do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
					inside <- struct{}{}
					select {
					case <-release:
					case <-ctx.Done():
					}
					return selectOne(ctx, conn)
				})
				var pg *pgconn.PgError
				if err == nil || !assert.ErrorAs(t, err, &pg) || !assert.Equal(t, "53300", pg.Code) {
					assert.NoError(t, err)
					return
				}
			}
		})
	}
	for range working {
		<-inside
	}
	for target := pings.failed.Load() + 2; pings.failed.Load() < target; {
		select {
		case <-pings.end:
		case <-ctx.Done():
			t.Fatalf("no two pings failed while every connection was busy: %v", p.Status())
		}
	}
	close(release)
	busy.Wait()

	// Queries: one more at once than the Pool holds.
	errs := make([]error, len(working)+1)
	var burst sync.WaitGroup
	for i := range errs {
		burst.Go(func() { errs[i] = p.Do(ctx, sleep("0.3")) })
	}
	burst.Wait()
	var refused int
	for _, err := range errs {
		if err == nil {
			continue
		}
		var pg *pgconn.PgError
		require.ErrorAs(t, err, &pg, "a query failed otherwise: %v", err)
		require.Equal(t, "53300", pg.Code)
		refused++
	}
	assert.NotZero(t, refused, "no query needed one more connection: %v", errs)
	assert.Less(t, refused, len(errs), "no query worked: %v", errs)

	// Single queries work; the Pool is ready again at once, if it ever left.
	for p.Status().State != health.Connected {
		require.NoError(t, p.Do(ctx, selectOne))
		require.Less(t, time.Since(first), 20*time.Second, "not Connected again: %v", p.Status())
	}
	states := rec.Stop()
	if h := p.History(); len(states) > 1 {
		t.Logf("left Connected (%v), ready again %v after the first refusal", lossOf(t, h).Err, connectedAt(t, h, "").Sub(first).Round(time.Millisecond))
	} else {
		t.Logf("the 53300 refusals left the Pool Connected: ready again 0s after the first")
	}
	assert.Equal(t, []health.State{health.Connected}, states, "the Pool left Connected over a refused dial")
	assert.ElementsMatch(t, working, backendPIDs(t, admin, "burst"), "the working connections were dropped")
	assert.EqualValues(t, 1, p.Status().Connects)
}

// fill opens connections to c until the server refuses one with 53300,
// keeps them until t ends, and returns how many it holds.
func fill(t *testing.T, c *pgtest.Cluster) int {
	t.Helper()
	var held []*pgx.Conn
	t.Cleanup(func() {
		for _, conn := range held {
			conn.Close(context.Background())
		}
	})
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		conn, err := pgx.Connect(ctx, c.DSN("application_name", "filler"))
		cancel()
		if err != nil {
			var pg *pgconn.PgError
			require.ErrorAs(t, err, &pg)
			require.Equal(t, "53300", pg.Code)
			return len(held)
		}
		held = append(held, conn)
		require.Less(t, len(held), 100, "the server never said it is full")
	}
}

// TestPoolCallerDeadlineIsNotALoss: a query whose caller's deadline (100ms)
// ends it under way, and one whose caller cancels it, leave the Pool
// Connected (readiness 200 throughout, no reconnect): the caller gave up,
// the database did not fail. pgx closed the connection they ran on, and
// pgxpool dropped it: the next query runs on another backend, and the
// interrupted one is gone from the server.
func TestPoolCallerDeadlineIsNotALoss(t *testing.T) {
	admin := shared.Connect(t)
	p := newPool(t, shared, "pool-deadline", newPingCounter(), postgres.PoolOptions{PingInterval: time.Hour})
	testkit.Run(t, p)
	testkit.WaitStatus(t, p, 10*time.Second, "connected", testkit.InState(health.Connected))
	rec := testkit.Record(p)
	pidOf := func(ctx context.Context, conn *pgxpool.Conn) (uint32, error) {
		var pid uint32
		err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid)
		return pid, err
	}
	for name, end := range map[string]func(context.Context) (context.Context, context.CancelFunc){
		"deadline": func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 100*time.Millisecond)
		},
		"cancel": func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		},
	} {
		qctx, cancel := end(t.Context())
		var pid uint32
		began := time.Now()
		err := p.Do(qctx, func(ctx context.Context, conn *pgxpool.Conn) error {
			var err error
			if pid, err = pidOf(ctx, conn); err != nil {
				return err
			}
			_, err = conn.Exec(ctx, "SELECT pg_sleep(1)")
			return err
		})
		cancel()
		require.Error(t, err, name)
		assert.True(t, errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled), "%s: %v", name, err)
		assert.Less(t, time.Since(began), 900*time.Millisecond, "%s: the query was not interrupted", name)
		assert.Equal(t, health.Connected, p.Status().State, "%s: readiness flipped: %v", name, p.Status().Err)
		require.NoError(t, p.Do(t.Context(), func(ctx context.Context, conn *pgxpool.Conn) error {
			next, err := pidOf(ctx, conn)
			assert.NotEqual(t, pid, next, "%s: the interrupted connection was handed out again", name)
			return err
		}))
		tick := time.NewTicker(10 * time.Millisecond) // nothing signals the end of pgx's cleanup: poll the server
		for slices.Contains(backendPIDs(t, admin, "pool-deadline"), int32(pid)) {
			require.Less(t, time.Since(began), 10*time.Second, "%s: the interrupted backend is still there", name)
			<-tick.C
		}
		tick.Stop()
	}
	assert.Equal(t, []health.State{health.Connected}, rec.Stop(), "a caller's deadline changed the health")
	assert.EqualValues(t, 1, p.Status().Connects)
}

// TestPoolDoDoesNotDialWhileNotConnected: a Pool whose first attempt a
// full server refused with 53300 waits that hint (a minute here) in
// Backoff. Do fails at once, without a dial (the server's log of refused
// logins does not grow), with an error wrapping ErrNotReady and the
// refusal; with WaitForReady it waits until its ctx ends instead.
func TestPoolDoDoesNotDialWhileNotConnected(t *testing.T) {
	t.Parallel()
	const hint = time.Minute
	c := pgtest.Start(t, pgtest.Options{Settings: map[string]string{"max_connections": "2", "superuser_reserved_connections": "0"}})
	c.Connect(t)
	c.Connect(t)
	r := redialtest.NewProxy(t, c.Addr())
	dsn := c.DSNVia(r.Addr(), "application_name", "not-ready", "sslmode", "disable")
	for _, wait := range []bool{false, true} {
		p, err := postgres.NewPool(dsn, postgres.PoolOptions{TooManyConnectionsHint: hint, WaitForReady: wait,
			Supervisor: supervisor.Settings{Backoff: fast}})
		require.NoError(t, err)
		testkit.Run(t, p)
		refused := testkit.WaitStatus(t, p, 10*time.Second, "a 53300 refusal", testkit.InState(health.Backoff))
		require.ErrorContains(t, refused.Err, "53300")
		accepts := r.Accepted()
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		began := time.Now()
		for range 20 {
			err = p.Do(ctx, selectOne)
			if wait {
				require.ErrorIs(t, err, context.DeadlineExceeded)
				break
			}
			require.ErrorIs(t, err, postgres.ErrNotReady)
			var pg *pgconn.PgError
			require.ErrorAs(t, err, &pg, "the last error: %v", err)
			assert.Equal(t, "53300", pg.Code)
		}
		took := time.Since(began)
		cancel()
		assert.Equal(t, accepts, r.Accepted(), "WaitForReady %v: Do dialed in Backoff", wait)
		if !wait {
			assert.Less(t, took, 100*time.Millisecond, "20 calls did not fail at once")
		}
		assert.Equal(t, health.Backoff, p.Status().State)
	}
}

// TestPoolWaitForReady: with WaitForReady a Do made in an outage waits
// and runs once the Pool is Connected again.
func TestPoolWaitForReady(t *testing.T) {
	r := redialtest.NewProxy(t, shared.Addr())
	p, err := postgres.NewPool(shared.DSNVia(r.Addr(), "application_name", "wait-for-ready", "sslmode", "disable"),
		postgres.PoolOptions{WaitForReady: true, Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	testkit.Run(t, p)
	testkit.WaitStatus(t, p, 10*time.Second, "connected", testkit.InState(health.Connected))
	r.Refuse()
	r.Kill()
	require.Error(t, p.Do(t.Context(), selectOne), "the query over the killed connection")
	testkit.WaitStatus(t, p, 10*time.Second, "backoff", testkit.InState(health.Backoff))
	done := make(chan error, 1)
	go func() { done <- p.Do(t.Context(), selectOne) }()
	select {
	case err := <-done:
		t.Fatalf("Do returned in an outage: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	r.Heal()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("Do still waits after the Pool was Connected again")
	}
	assert.Equal(t, health.Connected, p.Status().State)
}
