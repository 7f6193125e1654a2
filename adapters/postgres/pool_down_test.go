package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// TestPoolBacksOffWhileServerIsDown stops the server for 5s: the Pool goes
// Connected -> Backoff -> Connected, with the same *pgxpool.Pool, and the
// pings while the server is down follow the backoff, not a tight loop.
func TestPoolBacksOffWhileServerIsDown(t *testing.T) {
	t.Parallel()
	const down = 5 * time.Second
	bo := backoff.Config{Base: 50 * time.Millisecond, Cap: 400 * time.Millisecond}
	c := pgtest.Start(t, pgtest.Options{})
	pings := newPingCounter()
	p := newPool(t, c, "pool-down", pings, postgres.PoolOptions{Supervisor: supervisor.Settings{Backoff: bo}, PingInterval: 100 * time.Millisecond, PingTimeout: time.Second})
	testkit.Run(t, p)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	pool, err := p.Sup().Conn(ctx)
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
	same, err := p.Sup().Conn(ctx)
	require.NoError(t, err)
	assert.Same(t, pool, same, "the program's pool is the same")
	var one int
	require.NoError(t, pool.QueryRow(ctx, "SELECT 1").Scan(&one), "the pool works again with no restart")
	assert.EqualValues(t, 2, p.Status().Connects)
}
