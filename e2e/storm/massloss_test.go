package storm

import (
	"context"
	"flag"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"syscall"
	"testing"
	"time"

	ws "github.com/coder/websocket"

	"github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

var (
	lossN       = flag.Int("storm.lossn", 10000, "mass loss: supervisors")
	lossProfile = flag.String("storm.lossprofile", "", "mass loss: write the CPU profile of the loss to this file")
)

// BenchmarkMassLoss: -storm.lossn websocket.New supervisors (the
// defaults, each read by a Messages loop, as a feed program does) hold
// connections to the storm's server in another process, which exits: the
// kernel drops every connection at once. Reported: the CPU this process
// spends from then until every supervisor has failed its first retry
// (nothing listens any more), per supervisor. -storm.lossprofile writes
// the CPU profile of that window (`go tool pprof -top` on it says what
// share redaction takes). Run with -benchtime=1x.
func BenchmarkMassLoss(b *testing.B) {
	for range b.N {
		cpu, n := massLoss(b, *lossN, *lossProfile)
		b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-us/supervisor")
		b.ReportMetric(cpu.Seconds(), "cpu-s")
	}
}

func massLoss(tb testing.TB, n int, profile string) (time.Duration, int) {
	srv := startWSServer(tb)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	sups := make([]*supervisor.Supervisor[*ws.Conn], n)
	for i := range sups {
		s, err := websocket.New(srv.url(), websocket.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		sups[i] = s
		wg.Go(func() { _ = s.Run(ctx) })
		wg.Go(func() {
			for range websocket.Messages(ctx, s) { // yields nothing but the loss
			}
		})
	}
	// every waits until ok holds for each supervisor, looking every 100 ms
	// (one look at 10,000 is about a millisecond of CPU).
	every := func(what string, ok func(health.Status) bool) {
		deadline := time.Now().Add(2 * time.Minute)
		for i := 0; i < len(sups); {
			if ok(sups[i].Status()) {
				i++
				continue
			}
			if time.Now().After(deadline) {
				tb.Fatalf("storm: timed out waiting for %s", what)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	every("every connection", func(st health.Status) bool { return st.State == health.Connected })
	runtime.GC()
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			tb.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			tb.Fatal(err)
		}
	}
	before := cpuTime()
	srv.die(tb)
	every("every first retry", func(st health.Status) bool { return st.Failures >= 1 })
	used := cpuTime() - before
	if profile != "" {
		pprof.StopCPUProfile()
	}
	return used, n
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
