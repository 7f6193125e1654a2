package httpcore

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

const costEnv = "HTTPCORE_COST_CHILD"

// bare is a Connector whose Watch only waits: a supervisor of it is what
// every adapter pays, which the core's cost is measured against.
type bare struct{}

func (bare) Connect(context.Context) (*pingedConn, error)   { return &pingedConn{}, nil }
func (bare) Close(*pingedConn) error                        { return nil }
func (bare) Watch(ctx context.Context, _ *pingedConn) error { <-ctx.Done(); return ctx.Err() }

// deepPing recurses n times through a 256-byte frame: 16 KiB of stack for
// 64, as a ping's write path through TLS and a socket may take.
//
//go:noinline
func deepPing(n int) int {
	var frame [256]byte
	frame[n%len(frame)] = byte(n)
	if n == 0 {
		return int(frame[0])
	}
	return deepPing(n-1) + int(frame[n%len(frame)])
}

// parkedCost starts n connected supervisors that start returns, lets
// three heartbeat periods pass, and returns what each holds between
// pings, heap and stack, and its stack alone.
func parkedCost(t *testing.T, ctx context.Context, n int, start func() *supervisor.Supervisor[*pingedConn]) (total, stack float64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sups := make([]*supervisor.Supervisor[*pingedConn], n)
	for i := range sups {
		sups[i] = start()
		go func() { _ = sups[i].Run(ctx) }()
		synctest.Wait() // one at a time, as idleCost in supervisor/stack_test.go
		require.Equal(t, health.Connected, sups[i].Status().State)
		time.Sleep(DefaultPingInterval / time.Duration(n)) // their pings at different times, as a fleet's are
	}
	time.Sleep(3 * DefaultPingInterval) // three pings each
	synctest.Wait()
	for range 4 { // each GC halves a stack at most
		runtime.GC()
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(sups)
	stack = (float64(after.StackInuse) - float64(before.StackInuse)) / float64(n)
	heap := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n)
	return heap + stack, stack
}

// The core's per-connection budget (issue 22, WebSocket memory): a
// connected supervisor over the core holds, between pings, at most 1.5 KiB
// more than a bare supervisor whose Watch only waits (its Core, the
// connection's State and live entry, the heartbeat's timer, the secret
// set: 1.0-1.2 KB measured) and no more stack, however deep a ping goes:
// pings run on a timer's goroutine that ends with them. With a heartbeat
// loop on the supervisor's goroutine it was 4.1 KB more (8.4 KB with
// -race), 2.1 KB of it the ping's stack kept by that goroutine.
//
// It measures in a process of its own: stacks that earlier tests (or an
// earlier -count) freed stay cached and would be counted as this one's.
func TestParkedConnectionCost(t *testing.T) {
	if os.Getenv(costEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestParkedConnectionCost$", "-test.v")
		cmd.Env = append(os.Environ(), costEnv+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("%s", out)
		require.NoError(t, err, "the measuring process failed")
		return
	}
	synctest.Test(t, func(t *testing.T) {
		const n = 300
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		ping := func(context.Context, int) error { deepPing(64); return nil }
		core := func() *supervisor.Supervisor[*pingedConn] {
			s, err := New(pingedSpec, Config{URL: "ws://h/x"}, supervisor.Options[*pingedConn]{},
				func(c *Core) (Library[*pingedConn], error) { return &pinged{Core: c, ping: ping}, nil })
			require.NoError(t, err)
			return s
		}
		parkedCost(t, ctx, n, core) // takes up the stack slots and map room the first ones leave
		withCore, coreStack := parkedCost(t, ctx, n, core)
		without, bareStack := parkedCost(t, ctx, n, func() *supervisor.Supervisor[*pingedConn] {
			s, err := supervisor.New[*pingedConn](bare{}, supervisor.Options[*pingedConn]{Settings: supervisor.Settings{Name: "ws://h/x"}})
			require.NoError(t, err)
			return s
		})
		t.Logf("per connected supervisor: %.0f B (stack %.0f B) over the core, %.0f B (stack %.0f B) bare", withCore, coreStack, without, bareStack)
		assert.LessOrEqual(t, withCore-without, 1536.0, "the core's per-connection cost")
		assert.LessOrEqual(t, coreStack, bareStack+512, "the supervisor's goroutine kept a ping's stack")
		cancel()
		synctest.Wait()
	})
}
