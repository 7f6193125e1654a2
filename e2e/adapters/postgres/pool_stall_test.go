package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// TestPoolRunReturnsPromptlyOnAStalledNetwork ends a Pool's Run while its
// health ping hangs on a network that forwards nothing back. pgx would
// clean the interrupted connection up for 15s (a cancel request, then
// draining), and pgxpool.Close waits for that; Run must not.
func TestPoolRunReturnsPromptlyOnAStalledNetwork(t *testing.T) {
	proxy := toxitest.New(t, shared.Addr())
	dsn := shared.DSNVia(proxy.Addr(), "application_name", "pool-stall", "pool_max_conns", "2")
	pings := newPingCounter()
	p, err := postgres.NewPool(dsn, postgres.PoolOptions{
		Supervisor:   supervisor.Settings{Backoff: fast},
		PingInterval: 50 * time.Millisecond,
		PingTimeout:  10 * time.Second, // the ping waits; Run's end interrupts it
		Configure:    pings.configure,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	testkit.WaitStatus(t, p, 10*time.Second, "connected", testkit.InState(health.Connected))

	proxy.Stall(t, "stall", "downstream") // nothing comes back, not even a close
	pings.waitEnded(t, 1, 5*time.Second)  // a ping has its connection: it hangs now
	cancelled := time.Now()
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
		t.Logf("Run returned %v after cancel; %d acquires started, %d ended", time.Since(cancelled), pings.started.Load(), pings.ended.Load())
		assert.Less(t, time.Since(cancelled), 3*time.Second, "Run waited for pgx's 15s cleanup")
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return within 30s of its ctx ending")
	}
}
