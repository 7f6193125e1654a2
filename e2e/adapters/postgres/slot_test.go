package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// TestADeadConnectionHoldsNoSlot kills the path under a pool of one
// connection while a query runs on it. The query ends with its caller's
// deadline, which is no connection loss: pgx closes the connection, and
// pgconn would then spend 15s cleaning it up — a cancel request and a
// wait for the server's goodbye, down a path that forwards nothing —
// while pgxpool keeps its slot. A connection whose caller gave up gets a
// second for that: the slot is free again that soon, and the Pool's
// pings, which it starts at once, find the dead path. The backoff keeps
// the Pool's own attempts out of the way while it is measured.
func TestADeadConnectionHoldsNoSlot(t *testing.T) {
	t.Parallel()
	proxy := toxitest.New(t, shared.Addr())
	path := newDeadPath(t, proxy)
	p, err := postgres.NewPool(shared.DSNVia(proxy.Addr(), "application_name", "slot", "pool_max_conns", "1"), postgres.PoolOptions{
		Supervisor: supervisor.Settings{Backoff: backoff.Config{Base: 10 * time.Second, Cap: 10 * time.Second}},
	})
	require.NoError(t, err)
	testkit.Run(t, p)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	testkit.WaitStatus(t, p, 20*time.Second, "connected", testkit.InState(health.Connected))

	path.Kill()
	qctx, qcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer qcancel()
	err = p.Do(qctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		_, err := conn.Exec(ctx, "SELECT 1")
		return err
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	failed := time.Now()
	assert.Equal(t, health.Connected, p.Status().State, "the caller's deadline counted as a loss")

	// Nothing signals a freed slot: poll the pool's count. The pings' own
	// dials, which the dead path holds until their timeout, are not the
	// dead connection: they are constructing, not acquired or idle.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for st := p.Stat(); st.AcquiredConns()+st.IdleConns() > 0; st = p.Stat() {
		require.Less(t, time.Since(failed), 20*time.Second, "the dead connection still holds its slot")
		<-tick.C
	}
	freed := time.Since(failed)
	t.Logf("the dead connection's slot was free %v after its query failed", freed.Round(time.Millisecond))
	assert.Less(t, freed, 2*time.Second, "the dead connection held its slot for %v", freed)
	st := testkit.WaitStatus(t, p, 15*time.Second, "backoff", testkit.InState(health.Backoff))
	t.Logf("the pings found the dead path %v after the query failed: %v", st.Since.Sub(failed).Round(time.Millisecond), st.Err)
	assert.Less(t, st.Since.Sub(failed), time.Second+2*postgres.DefaultPingTimeout+time.Second, "the pings did not start at once")
}
