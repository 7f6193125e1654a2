package storm

import (
	"context"
	"flag"
	"slices"
	"sync"
	"testing"
	"time"
)

var (
	wsN    = flag.Int("storm.n", 10000, "WebSocket storm: clients")
	wsRate = flag.Int("storm.rate", 1000, "WebSocket storm: handshakes the server accepts per second once back")
	wsDown = flag.Duration("storm.down", 500*time.Millisecond, "WebSocket storm: how long the server is away")
)

// wsResult is one storm's figures, from the server's records.
type wsResult struct {
	peak      int           // handshakes in the busiest 100 ms window after the server was back
	failed    int           // handshakes answered 503
	allBack   time.Duration // since the server went away, until the n-th accept; -1 if not all came back
	overCap   float64       // peak over the capacity per window (rate/10)
	beyondCap int           // handshakes beyond capacity, summed over the windows after it was back
	taken     int           // handshakes accepted in the busiest 100 ms window
}

// wsStorm connects n clients of strategy to a server, holds the
// connections for stableFor, makes the server go away for down, and waits
// until all are back (at most limit), then reports.
func wsStorm(tb testing.TB, strategy string, n, rate int, down, limit, stableFor time.Duration) wsResult {
	return wsStormAs(tb, strategy, "", n, rate, down, limit, stableFor)
}

// wsStormAs is wsStorm with the server's admission (see wsServer).
func wsStormAs(tb testing.TB, strategy, admission string, n, rate int, down, limit, stableFor time.Duration) wsResult {
	first := startWSServer(tb)
	f := startWSFleet(strategy, first.url(), n)
	defer f.stop() // when a wait fails; stopping twice is fine
	waitFor(tb, func() bool { return first.number(tb, "conns") == n }, 2*time.Minute, "first connections")
	time.Sleep(stableFor) // the measurement: connections old enough to count as stable
	back := prepareWSServerAs(tb, first.addr, down, rate, admission)
	t0 := first.die(tb)
	back.back(tb, t0)
	waitFor(tb, func() bool { return back.number(tb, "accepts") >= n || time.Since(t0) > limit }, limit+time.Minute, "everyone back")
	r := wsFigures(back.stats(tb), n, rate, down)
	f.stop()
	back.close()
	return r
}

func wsFigures(hs []handshake, n, rate int, down time.Duration) wsResult {
	const window = 100 * time.Millisecond
	per, taken := map[int64]int{}, map[int64]int{}
	var accepts []time.Duration
	r := wsResult{allBack: -1}
	for _, h := range hs {
		per[int64(h.At/window)]++
		if h.OK {
			taken[int64(h.At/window)]++
			r.taken = max(r.taken, taken[int64(h.At/window)])
			accepts = append(accepts, h.At)
		} else {
			r.failed++
		}
	}
	capacity := float64(rate) * window.Seconds()
	for w, c := range per {
		if time.Duration(w)*window >= down-window { // the window the server came back in, and after
			r.peak = max(r.peak, c)
			r.beyondCap += max(0, c-int(capacity))
		}
	}
	r.overCap = float64(r.peak) / capacity
	slices.Sort(accepts)
	if len(accepts) >= n {
		r.allBack = accepts[n-1]
	}
	return r
}

// wsHandshakeRate measures how many handshakes a second this machine
// answers, the server and n clients together: n clients dial at one
// instant a server that refuses all but one a second (503), and the
// busiest 100 ms window of its records, times ten, is the rate; the
// median of five such bursts. The herd
// simulator takes it as the server's Service rate (examples/herd
// -service), so that its burst is as wide as the real one.
func wsHandshakeRate(tb testing.TB, n int) (median, lo, hi float64) {
	var rates []float64
	for range 5 {
		rates = append(rates, wsBurst(tb, n))
	}
	slices.Sort(rates)
	return rates[len(rates)/2], rates[0], rates[len(rates)-1]
}

// wsBurst is one burst of n handshakes; it returns the busiest 100 ms
// window, times ten.
func wsBurst(tb testing.TB, n int) float64 {
	srv := prepareWSServer(tb, "127.0.0.1:0", 0, 1)
	defer srv.close()
	srv.back(tb, time.Now())
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			<-start
			if conn, err := dial(context.Background(), srv.url()); err == nil {
				conn.CloseNow()
			}
		})
	}
	close(start)
	wg.Wait()
	per := map[int64]int{}
	peak := 0
	for _, h := range srv.stats(tb) {
		w := int64(h.At / (100 * time.Millisecond))
		per[w]++
		peak = max(peak, per[w])
	}
	return float64(peak) * 10
}

// BenchmarkWebSocketStorm: -storm.n WebSocket clients (10,000) of each
// strategy on one server in another process, which goes away for
// -storm.down (500 ms), every connection closed, and then accepts
// -storm.rate handshakes a second (1,000), the rest answered 503 without
// Retry-After. Reported from the server's records: handshakes in the
// busiest 100 ms window after it was back, that over its capacity per
// window, the handshakes beyond capacity summed over the windows, the
// failed handshakes, and the seconds from its going away until every
// client was back. redial's connections are held for its StableAfter
// (30 s) first, so that their loss counts as stable, as a real fleet's
// hours-old ones do. Run with -benchtime=1x.
func BenchmarkWebSocketStorm(b *testing.B) {
	b.Run("calibrate", func(b *testing.B) {
		for range b.N {
			median, lo, hi := wsHandshakeRate(b, *wsN)
			b.ReportMetric(median, "hs/s")
			b.ReportMetric(lo, "hs/s-lo") // the slowest and fastest of the five bursts: the rate's own spread
			b.ReportMetric(hi, "hs/s-hi")
		}
	})
	for _, strategy := range wsStrategies {
		b.Run(strategy, func(b *testing.B) {
			stable := 2 * time.Second
			if strategy == "redial" {
				stable = 31 * time.Second
			}
			for range b.N {
				r := wsStorm(b, strategy, *wsN, *wsRate, *wsDown, 15*time.Minute, stable)
				b.ReportMetric(float64(r.peak), "peak-hs/100ms")
				b.ReportMetric(r.overCap, "peak/cap")
				b.ReportMetric(float64(r.beyondCap), "hs-beyond-cap")
				b.ReportMetric(float64(r.failed), "failed-hs")
				b.ReportMetric(r.allBack.Seconds(), "s-until-all-back")
			}
		})
	}
}
