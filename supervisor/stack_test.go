package supervisor_test

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/supervisor"
)

// deepConnector dials like a real transport does, as far as the stack is
// concerned: DNS, TLS and an HTTP handshake take kilobytes of frames, and so
// does its OnConnect (a subscription written through the same layers).
type deepConnector struct{}

type deepConn struct{ n int }

func (deepConnector) Connect(context.Context) (*deepConn, error) { return &deepConn{n: deep(64)}, nil }
func (deepConnector) Close(*deepConn) error                      { return nil }

// deep recurses n times through a 256-byte frame: 16 KiB of stack for 64.
//
//go:noinline
func deep(n int) int {
	var frame [256]byte
	frame[n%len(frame)] = byte(n)
	if n == 0 {
		return int(frame[0])
	}
	return deep(n-1) + int(frame[n%len(frame)])
}

// startingStack is the stack a new goroutine starts with: Go sizes it at
// each GC from the average stack in use then, 2 KiB at least.
func startingStack() float64 {
	s := []metrics.Sample{{Name: "/gc/stack/starting-size:bytes"}}
	metrics.Read(s)
	return float64(s[0].Value.Uint64())
}

// The stack budget of an idle supervisor (BENCHMARKS.md, "An idle
// supervisor"): a connected supervisor's goroutine keeps the stack it
// started with, however deep the dial and OnConnect went — the attempt
// runs on a hand, whose stack is freed when the attempt ends. Were it run
// on Run's goroutine, the 16 KiB dial would
// leave it at 4 KiB at best (8 KiB with -race), since Go never shrinks a
// parked goroutine's stack below a quarter in use (the 800-byte guard
// counted): twice what it started with, and this test fails.
func TestIdleSupervisorKeepsNoStackOfItsDial(t *testing.T) {
	const n = 500
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	// Goroutines parked on a channel make the runtime's starting stack
	// the smallest (the test's own deep goroutines would make it 4 KiB).
	for range n {
		wg.Go(func() { <-ctx.Done() })
	}
	runtime.Gosched()
	runtime.GC()
	runtime.GC()
	start := startingStack()

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sups := make([]*supervisor.Supervisor[*deepConn], n)
	for i := range sups { // one at a time: see idleCost
		s, err := supervisor.New[*deepConn](deepConnector{}, supervisor.Options[*deepConn]{
			OnConnect: func(context.Context, *deepConn) error { deep(64); return nil },
		})
		require.NoError(t, err)
		sups[i] = s
		wg.Go(func() { _ = s.Run(ctx) })
		_, err = s.Conn(ctx)
		require.NoError(t, err)
	}
	for range 4 { // each GC halves a stack at most: 32 KiB takes three to reach 4 KiB
		runtime.GC()
	}
	runtime.ReadMemStats(&after)
	per := (float64(after.StackInuse) - float64(before.StackInuse)) / n
	t.Logf("stack per idle supervisor %.0f B; a goroutine starts with %.0f B", per, start)
	// A few goroutines grow in a malloc slow path as they park (a sudog,
	// a span refill): 512 B on average is a fourth of them at 2 KiB, and
	// far less than a goroutine that kept its dial.
	assert.Less(t, per, start+512, "an idle supervisor's goroutine kept the stack its dial grew")
}

// idleCost starts n connected supervisors of the idle connector with
// logger and returns what each costs, heap and stack (the parked Run
// goroutine included), and its stack alone. They stop when ctx ends.
func idleCost(t *testing.T, ctx context.Context, wg *sync.WaitGroup, n int, logger *slog.Logger) (total, stack float64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sups := make([]*supervisor.Supervisor[*idleConn], n)
	// One at a time: hands of attempts made together take stack slots
	// between the Run goroutines' in the runtime's stack spans, which then
	// stay in use (-race: 0.5-2.5 KB a supervisor, either way).
	for i := range sups {
		s, err := supervisor.New[*idleConn](idle{}, supervisor.Options[*idleConn]{Settings: supervisor.Settings{Name: "idle", Logger: logger}})
		require.NoError(t, err)
		sups[i] = s
		wg.Go(func() { _ = s.Run(ctx) })
		_, err = s.Conn(ctx)
		require.NoError(t, err)
	}
	for range 4 {
		runtime.GC()
	}
	runtime.ReadMemStats(&after)
	stack = (float64(after.StackInuse) - float64(before.StackInuse)) / float64(n)
	heap := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n)
	runtime.KeepAlive(sups)
	return heap + stack, stack
}

// The Logger's budget (issue 22): an idle connected supervisor whose Logger
// is a stock slog JSON handler costs at most 4 KiB, and at most 5 % more
// than one without a Logger. The handler's frames are deep (4 KiB of stack
// for a record); were they run on Run's goroutine, which never shrinks its
// stack while it parks, each supervisor would keep them: 5.6 KB, stack 4.1
// KB, against 4.0 KB and 2.2-2.5 KB without.
func TestIdleSupervisorWithALoggerCostsWhatOneWithoutDoes(t *testing.T) {
	const n = 2000
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	for range 500 { // keep the runtime's starting stack at its smallest
		wg.Go(func() { <-ctx.Done() })
	}
	runtime.Gosched()
	idleCost(t, ctx, &wg, n, nil) // takes up the stack slots earlier tests left free
	without, withoutStack := idleCost(t, ctx, &wg, n, nil)
	with, withStack := idleCost(t, ctx, &wg, n, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	t.Logf("per idle supervisor: %.0f B (stack %.0f B) with a JSON Logger, %.0f B (stack %.0f B) without", with, withStack, without, withoutStack)
	// The 4 KiB target is judged by BenchmarkIdleSupervisorsWithLogger
	// (BENCHMARKS.md says met or missed); here, where 4066-4115 B came
	// over 8 runs of one commit, a bound of 4.5 KiB catches a regression
	// without failing on the stacks' noise.
	if !raceEnabled {
		assert.LessOrEqual(t, with, 4608.0)
	}
	assert.LessOrEqual(t, with, 1.05*without)
}
