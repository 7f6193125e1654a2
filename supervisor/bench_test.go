package supervisor_test

import (
	"context"
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
func BenchmarkIdleSupervisors(b *testing.B) {
	const n = 10_000
	for range b.N {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		sups := make([]*supervisor.Supervisor[*idleConn], n)
		for i := range sups {
			s, err := supervisor.New[*idleConn](idle{}, supervisor.Options[*idleConn]{Name: "idle"})
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
		b.ReportMetric((heap+stack)/n, "B/supervisor")
		b.ReportMetric(stack/n, "stack-B/supervisor")

		s0 := schedSamples()
		time.Sleep(time.Second) // the measurement: one second of idleness
		b.ReportMetric(float64(schedSamples()-s0)/n, "sched-samples/supervisor/s")

		cancel()
		wg.Wait()
	}
}
