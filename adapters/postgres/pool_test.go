package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/pgtest"
)

func newPool(t *testing.T, c *pgtest.Cluster, app string, pings *pingCounter, o postgres.PoolOptions) *postgres.Pool {
	t.Helper()
	o.DSN = c.DSN("application_name", app, "pool_max_conns", "2")
	if o.Backoff == (backoff.Config{}) {
		o.Backoff = fast
	}
	o.Configure = pings.configure
	p, err := postgres.NewPool(o)
	require.NoError(t, err)
	return p
}

// TestTerminatedBackendsRecover terminates the server sessions of a
// Listener and of a Pool with pg_terminate_backend. The Listener
// reconnects and re-LISTENs; the Pool never leaves Connected: pgxpool
// replaces the dead connection and the second ping finds it healthy.
func TestTerminatedBackendsRecover(t *testing.T) {
	admin := shared.Connect(t)
	pings := newPingCounter()
	p := newPool(t, shared, "pool-terminate", pings, postgres.PoolOptions{PingInterval: 30 * time.Millisecond, PingTimeout: time.Second})
	l := newListener(t, postgres.ListenerOptions{Options: postgres.Options{DSN: shared.DSN("application_name", "listener-terminate")}, Channels: []string{"t"}})
	start(t, p)
	start(t, l)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	pool, err := p.Conn(ctx)
	require.NoError(t, err)
	waitFor(t, l, 10*time.Second, "listener connected", isState(health.Connected))
	pings.waitEnded(t, 2, 5*time.Second) // the pool's connection is in steady use
	rec := record(p)

	for round := range 3 {
		require.Equal(t, 1, terminate(t, admin, "pool-terminate"), "one pool backend")
		require.Equal(t, 1, terminate(t, admin, "listener-terminate"), "one listener backend")
		pings.waitEnded(t, 4, 5*time.Second) // pings after the termination
		expectMissed(t, l, 10*time.Second)
		notify(t, admin, "t", fmt.Sprint(round))
		expect(t, l, "t", fmt.Sprint(round))
	}
	var one int
	require.NoError(t, pool.QueryRow(ctx, "SELECT 1").Scan(&one))
	assert.Equal(t, []health.State{health.Connected}, rec.stop(), "the pool left Connected")
	assert.EqualValues(t, 1, p.Status().Connects)
	assert.EqualValues(t, 4, l.Status().Connects)
}

// TestPoolBacksOffWhileServerIsDown stops the server for 5s: the Pool goes
// Connected -> Backoff -> Connected, with the same *pgxpool.Pool, and the
// pings while the server is down follow the backoff, not a tight loop.
func TestPoolBacksOffWhileServerIsDown(t *testing.T) {
	t.Parallel()
	const down = 5 * time.Second
	bo := backoff.Config{Base: 50 * time.Millisecond, Cap: 400 * time.Millisecond}
	c := pgtest.Start(t, pgtest.Options{})
	pings := newPingCounter()
	p := newPool(t, c, "pool-down", pings, postgres.PoolOptions{Options: postgres.Options{Backoff: bo}, PingInterval: 100 * time.Millisecond, PingTimeout: time.Second})
	start(t, p)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	pool, err := p.Conn(ctx)
	require.NoError(t, err)

	statuses, unsub := p.Subscribe()
	defer unsub()
	<-statuses // the current one
	var backoffs []health.Status
	var states []health.State
	watch := func(st health.Status) {
		if n := len(states); n == 0 || states[n-1] != st.State {
			states = append(states, st.State)
		}
		if st.State == health.Backoff {
			backoffs = append(backoffs, st)
		}
	}

	before := pings.started.Load()
	stoppedAt := time.Now()
	c.Stop(t, pgtest.Fast)
	hold := time.NewTimer(down) // the outage lasts this long
	for held := false; !held; {
		select {
		case st := <-statuses:
			watch(st)
		case <-hold.C:
			held = true
		}
	}
	downFor := time.Since(stoppedAt)
	during := pings.started.Load() - before
	c.Start(t)
	for p.Status().State != health.Connected || len(statuses) > 0 {
		select {
		case st := <-statuses:
			watch(st)
		case <-ctx.Done():
			t.Fatalf("not Connected again: %v", p.Status())
		}
	}

	// At most two failing health pings (the one that failed and the
	// re-ping) and one that may have begun before the stop, then one ping
	// per attempt, with at least Base between attempts (the connection was
	// not stable, so no shortened first retry); at least one attempt per
	// Cap plus the time a refused ping takes.
	upper := 3 + int64(downFor/bo.Base) + 1
	lower := int64(downFor/(bo.Cap+50*time.Millisecond)) - 1
	t.Logf("down %v: %d pings (bounds %d..%d from Base %v, Cap %v); %d Backoff statuses seen", downFor.Round(time.Millisecond), during, lower, upper, bo.Base, bo.Cap, len(backoffs))
	assert.LessOrEqual(t, during, upper, "pings faster than the backoff allows")
	assert.GreaterOrEqual(t, during, lower, "fewer pings than the backoff plans")

	require.NotEmpty(t, states, "no state change while the server was down")
	assert.Equal(t, health.Connected, states[len(states)-1])
	assert.NotContains(t, states[:len(states)-1], health.Connected, "Connected while the server was down: %v", states)
	assert.NotEmpty(t, backoffs, "never in Backoff")
	for _, st := range backoffs {
		assert.LessOrEqual(t, st.NextAttempt.Sub(st.Since), bo.Cap, "a planned delay beyond Cap")
	}
	same, err := p.Conn(ctx)
	require.NoError(t, err)
	assert.Same(t, pool, same, "the program's pool is the same")
	var one int
	require.NoError(t, pool.QueryRow(ctx, "SELECT 1").Scan(&one), "the pool works again with no restart")
	assert.EqualValues(t, 2, p.Status().Connects)
}

// TestTooManyConnectionsWaitsForTheHint fills max_connections: attempts
// get SQLSTATE 53300 and wait the longer hint; when a slot frees, the
// supervisor connects.
func TestTooManyConnectionsWaitsForTheHint(t *testing.T) {
	t.Parallel()
	const hint = 700 * time.Millisecond
	bo := backoff.Config{Base: 20 * time.Millisecond, Cap: 100 * time.Millisecond}
	c := pgtest.Start(t, pgtest.Options{Settings: map[string]string{"max_connections": "3", "superuser_reserved_connections": "0"}})
	held := c.Connect(t)
	c.Connect(t)
	c.Connect(t)

	s, err := postgres.NewConn(postgres.ConnOptions{Options: postgres.Options{DSN: c.DSN(), Backoff: bo, TooManyConnectionsHint: hint}})
	require.NoError(t, err)
	start(t, s)
	var st health.Status
	for i := 1; i <= 2; i++ { // the first refusal and a second one: every refusal waits the hint
		st = waitFor(t, s, 10*time.Second, "a refusal", func(st health.Status) bool {
			return st.State == health.Backoff && st.Attempt >= i
		})
		assert.Contains(t, st.Err.Error(), "53300")
		planned := st.NextAttempt.Sub(st.Since)
		t.Logf("attempt %d: planned wait %v (hint %v, Cap %v)", st.Attempt, planned.Round(time.Millisecond), hint, bo.Cap)
		assert.GreaterOrEqual(t, planned, hint-20*time.Millisecond, "the 53300 hint was not honored")
		waitFor(t, s, 10*time.Second, "the next attempt", isState(health.Connecting))
	}

	require.NoError(t, held.Close(t.Context())) // a slot frees
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := s.Conn(ctx)
	require.NoError(t, err)
	require.NoError(t, conn.Ping(ctx))
	assert.Equal(t, health.Connected, s.Status().State)
	assert.GreaterOrEqual(t, st.Attempt, 2)
}
