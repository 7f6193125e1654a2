package chaos

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/toxitest"
)

var bugsFlag = flag.Bool("chaos.bugs", false, "run the tests of known library bugs, which fail")

// A Pool whose server stops answering (here: nothing the server sends
// gets through; toxiproxy's own timeout toxic in both directions does the
// same) must still stop within stopBound of its ctx's end, as every other
// supervisor does (the single-connection adapters bound a close to 2s).
// It does not: the health ping in flight when Run's ctx ends is
// interrupted, pgconn closes that connection asynchronously (a cancel
// request on a new connection, Terminate, then draining, all bounded by
// pgconn's fixed 15s), pgxpool's destructor waits for that cleanup
// (CleanupDone), and Pool.Run waits in pgxpool.Close for the destructor:
// Run returns 15s after cancel. The chaos suite finds it with
// -chaos.stop-under-faults.
func TestBugPoolRunReturnsLateOnAStalledNetwork(t *testing.T) {
	if !*bugsFlag {
		t.Skip("a known library bug: run with -chaos.bugs to see it fail")
	}
	c := startCluster(t)
	proxy := toxitest.NewOn(t, lowAddr(t), upstream(c))
	p, err := postgres.NewPool(postgres.PoolOptions{
		Options: postgres.Options{
			DSN: dsnVia(c, proxy.Addr(), "pool-stall"), Backoff: config{seed: 1}.backoff(0), ConnectTimeout: connectTimeout,
		},
		PingInterval: 50 * time.Millisecond,
		PingTimeout:  10 * time.Second, // the ping waits; Run's end interrupts it
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	require.NoError(t, waitState(wctx, p, health.Connected))

	proxy.Add(t, "stall", stallToxic, "downstream", nil)
	pause(context.Background(), 300*time.Millisecond) // a ping is under way by now, and stalls
	cancelled := time.Now()
	cancel()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Pool.Run did not return within 30s of cancel")
	}
	took := time.Since(cancelled)
	proxy.Remove(t, "stall")
	require.NoError(t, err)
	t.Logf("Pool.Run returned %v after cancel", took.Round(time.Millisecond))
	assert.LessOrEqual(t, took, stopBound, "Pool.Run returned %v after cancel on a stalled network", took.Round(time.Millisecond))
}
