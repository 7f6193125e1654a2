package supervisor_test

import (
	"context"
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
// started with, however deep the dial and OnConnect went — the attempt's
// calls run on a goroutine of their own, whose stack is freed when the
// attempt ends. Were they run on Run's goroutine, the 16 KiB dial would
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
	for i := range sups {
		s, err := supervisor.New[*deepConn](deepConnector{}, supervisor.Options[*deepConn]{
			OnConnect: func(context.Context, *deepConn) error { deep(64); return nil },
		})
		require.NoError(t, err)
		sups[i] = s
		wg.Go(func() { _ = s.Run(ctx) })
	}
	for _, s := range sups {
		_, err := s.Conn(ctx)
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
