package supervisor_test

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/redial-go/redial/supervisor"
)

// idle is a connector whose connections never break: zero-size values,
// so the measurement below holds the supervisors and nothing else.
type idle struct{}

type idleConn struct{}

func (idle) Connect(context.Context) (*idleConn, error) { return &idleConn{}, nil }
func (idle) Close(*idleConn) error                      { return nil }

// schedSamples returns how many times goroutines were scheduled to run, as
// the runtime samples it (/sched/latencies counts about one in eight).
func schedSamples() uint64 {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}}
	metrics.Read(s)
	var n uint64
	for _, c := range s[0].Value.Float64Histogram().Counts {
		n += c
	}
	return n
}

// BenchmarkIdleSupervisors starts 10,000 connected supervisors without a
// Watcher and reports the memory each costs (heap and stack, the parked Run
// goroutine included, the connection excluded) and how often they are
// scheduled while idle for one second. Run it with -benchtime=1x.
func BenchmarkIdleSupervisors(b *testing.B) { idleSupervisors(b, 10_000, nil) }

// BenchmarkIdleSupervisorsWithLogger is the same with a stock slog JSON
// handler as every supervisor's Logger, as real programs run them.
func BenchmarkIdleSupervisorsWithLogger(b *testing.B) {
	idleSupervisors(b, 10_000, slog.New(slog.NewJSONHandler(io.Discard, nil)))
}

// BenchmarkIdleSupervisors100k is the same with 100,000 supervisors, and
// reports the memory of all of them too (target: 400 MB at most).
func BenchmarkIdleSupervisors100k(b *testing.B) { idleSupervisors(b, 100_000, nil) }

func idleSupervisors(b *testing.B, n int, logger *slog.Logger) {
	for range b.N {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		sups := make([]*supervisor.Supervisor[*idleConn], n)
		for i := range sups {
			s, err := supervisor.New[*idleConn](idle{}, supervisor.Options[*idleConn]{Settings: supervisor.Settings{Name: "idle", Logger: logger}})
			if err != nil {
				b.Fatal(err)
			}
			sups[i] = s
			wg.Go(func() { _ = s.Run(ctx) })
		}
		for _, s := range sups {
			if _, err := s.Conn(ctx); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		stack := float64(after.StackInuse) - float64(before.StackInuse)
		b.ReportMetric((heap+stack)/float64(n), "B/supervisor")
		b.ReportMetric(stack/float64(n), "stack-B/supervisor")
		b.ReportMetric((heap+stack)/1e6, "MB")

		s0 := schedSamples()
		time.Sleep(time.Second) // the measurement: one second of idleness
		samples := float64(schedSamples() - s0)
		b.ReportMetric(samples/float64(n), "sched-samples/supervisor/s")
		b.ReportMetric(samples, "sched-samples/s")

		cancel()
		wg.Wait()
	}
}

// connected returns a running supervisor of the idle connector, connected,
// and the ctx for its calls; it stops when the benchmark or test ends.
func connected(tb testing.TB) (*supervisor.Supervisor[*idleConn], context.Context) {
	s, err := supervisor.New[*idleConn](idle{}, supervisor.Options[*idleConn]{Settings: supervisor.Settings{Name: "idle"}})
	if err != nil {
		tb.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(runCtx) }()
	tb.Cleanup(func() { stop(); <-done; cancel() })
	if _, err := s.Conn(ctx); err != nil {
		tb.Fatal(err)
	}
	return s, ctx
}

// BenchmarkConn is Conn on a connected supervisor: the cost a message or
// call path pays for the supervisor before its I/O. 0 allocs/op.
func BenchmarkConn(b *testing.B) {
	s, ctx := connected(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Conn(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDo is Do with a function that does no I/O: Conn, the call, and
// the check of its (nil) error. 0 allocs/op.
func BenchmarkDo(b *testing.B) {
	s, ctx := connected(b)
	f := func(context.Context, *idleConn) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Do(ctx, f); err != nil {
			b.Fatal(err)
		}
	}
}
