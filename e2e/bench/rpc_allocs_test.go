//go:build !race

package bench

import (
	"net"
	"testing"
	"time"

	"github.com/cenkalti/rpc2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// rpc's Call allocates at most 3 times more than rpc2's CallWithContext,
// measured as BenchmarkRPCCalls does (the server, in this process, counts
// in both), without giving up what costs the rest: the call's own
// goroutine, the fresh reply and the sent mark (adapters/tcp/rpc). The
// race detector allocates: this file builds without it.
func TestRPCCallAllocs(t *testing.T) {
	addr := rpcServer(t)
	arg := make([]byte, msgSize)
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	client := rpc2.NewClient(conn)
	done := make(chan struct{})
	go func() { defer close(done); client.Run() }()
	defer func() { client.Close(); <-done }()
	c, err := rpc.New(addr, rpc.Options{})
	require.NoError(t, err)
	ctx := run(t, c.Run)
	testkit.WaitStatus(t, c, 30*time.Second, "connected", testkit.InState(health.Connected))

	raw := testing.AllocsPerRun(500, func() {
		var reply []byte
		require.NoError(t, client.CallWithContext(ctx, "Server.Echo", arg, &reply))
	})
	redial := testing.AllocsPerRun(500, func() {
		var reply []byte
		require.NoError(t, c.Call(ctx, "Server.Echo", arg, &reply))
	})
	t.Logf("allocs per call: rpc2 %.0f, redial %.0f", raw, redial)
	assert.LessOrEqual(t, redial, raw+3)
}
