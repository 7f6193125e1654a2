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
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
)

func newPool(t *testing.T, c *pgtest.Cluster, app string, pings *pingCounter, o postgres.PoolOptions) *postgres.Pool {
	t.Helper()
	if o.Supervisor.Backoff == (backoff.Config{}) {
		o.Supervisor.Backoff = fast
	}
	o.Configure = pings.configure
	p, err := postgres.NewPool(c.DSN("application_name", app, "pool_max_conns", "2"), o)
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
	l := newListener(t, shared.DSN("application_name", "listener-terminate"), postgres.ListenerOptions{Channels: []string{"t"}})
	testkit.Run(t, p)
	testkit.Run(t, l)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	pool, err := p.Sup().Conn(ctx)
	require.NoError(t, err)
	testkit.WaitStatus(t, l, 10*time.Second, "listener connected", testkit.InState(health.Connected))
	pings.waitEnded(t, 2, 5*time.Second) // the pool's connection is in steady use
	rec := testkit.Record(p)

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
	assert.Equal(t, []health.State{health.Connected}, rec.Stop(), "the pool left Connected")
	assert.EqualValues(t, 1, p.Status().Connects)
	assert.EqualValues(t, 4, l.Status().Connects)
}
