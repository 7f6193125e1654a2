package storm

import (
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(wsServerEnv) != "" {
		wsServerMain() // this process is the WebSocket storm's server
		return
	}
	goleak.VerifyTestMain(m)
}

// storm connects n clients, restarts the server (down for down), and
// returns how long after it was back all clients were, and the peak accepts
// per 100ms window after the restart.
func storm(tb testing.TB, n int, down time.Duration, kind string) (time.Duration, int) {
	srv, err := newServer(100 * time.Millisecond)
	if err != nil {
		tb.Fatal(err)
	}
	var f fleet
	if kind == "redial" {
		s, err := newSupervised(srv.addr, n)
		if err != nil {
			tb.Fatal(err)
		}
		f = s
	} else {
		f = newNaive(srv.addr, n)
	}
	defer func() { f.stop(); srv.stop() }()
	waitFor(tb, func() bool { return f.connected() == n && srv.open() == n }, time.Minute, "first connections")
	time.Sleep(stableAfter + 200*time.Millisecond) // the measurement: connections older than stableAfter

	srv.stop()
	waitFor(tb, func() bool { return f.connected() == 0 }, 10*time.Second, "everyone to see the restart")
	time.Sleep(down) // the measurement: the server is down
	if err := srv.start(); err != nil {
		tb.Fatal(err)
	}
	back := time.Now()
	waitFor(tb, func() bool { return f.connected() == n }, 5*time.Minute, "everyone back")
	return time.Since(back), srv.peakSince(back.Add(-down))
}

// waitFor polls cond every 10ms: this is a benchmark's measurement loop,
// not a test waiting for a state.
func waitFor(tb testing.TB, cond func() bool, limit time.Duration, what string) {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("storm: timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkReconnectStorm: 1,000 clients over loopback TCP, the server
// restarted and down for 500ms. Reported: seconds from the server's return
// until all are back, and the most accepts in one 100ms window. Run with
// -benchtime=1x.
func BenchmarkReconnectStorm(b *testing.B) {
	for _, kind := range []string{"redial", "no-jitter"} {
		b.Run(kind, func(b *testing.B) {
			for range b.N {
				d, peak := storm(b, 1000, 500*time.Millisecond, kind)
				b.ReportMetric(d.Seconds(), "s-until-all-back")
				b.ReportMetric(float64(peak), "peak-accepts/100ms")
			}
		})
	}
}
