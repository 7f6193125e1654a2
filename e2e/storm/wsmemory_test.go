package storm

import (
	"cmp"
	"context"
	"flag"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"sync"
	"testing"
	"time"

	ws "github.com/coder/websocket"

	"github.com/redial-go/redial/adapters/websocket"
)

var (
	wsMemN       = flag.Int("storm.memn", 10000, "WebSocket memory: connections")
	wsMemProfile = flag.String("storm.memprofile", "", "WebSocket memory: write each row's heap profile, with the connections open, to this prefix + row + .pprof")
)

// BenchmarkWebSocketMemory holds -storm.memn (10,000) WebSocket
// connections to a server in another process, three times in one run:
// raw, each a connection from coder/websocket's Dial read by one goroutine
// (conn.Read, as a program that reads a feed does); raw with the adapter's
// heartbeat, the same plus a goroutine that pings every PingInterval and
// waits PingTimeout for the pong (the adapter's defaults, 10 s and 5 s);
// redial, each a websocket.New supervisor with its defaults read by a loop
// over websocket.Messages. Reported per connection, after every heartbeat
// ran at least once and two GCs: the live heap and the stacks (what the Go
// runtime holds for the connection; the kernel's socket buffers are the
// same for all and not counted), and the stacks and goroutines alone; the
// median of three readings a second apart, so that a moment in which the
// loaded machine held the pongs back does not decide; and the stack Go
// starts a goroutine with then (it follows the average stack in use). Run
// with -benchtime=1x.
func BenchmarkWebSocketMemory(b *testing.B) {
	n := *wsMemN
	if *wsMemProfile != "" {
		defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
		runtime.MemProfileRate = 1 // every allocation: a connection's objects are small
	}
	for range b.N {
		raw := wsMemory(b, n, "raw", func(ctx context.Context, wg *sync.WaitGroup, url string) {
			if conn := rawDial(b, ctx, url); conn != nil {
				wg.Go(func() { rawRead(ctx, conn) })
			}
		})
		beat := wsMemory(b, n, "raw-heartbeat", func(ctx context.Context, wg *sync.WaitGroup, url string) {
			if conn := rawDial(b, ctx, url); conn != nil {
				wg.Go(func() { rawRead(ctx, conn) })
				wg.Go(func() { rawPing(ctx, conn) })
			}
		})
		var failures uint64
		sup := wsMemory(b, n, "redial", func(ctx context.Context, wg *sync.WaitGroup, url string) {
			s, err := websocket.New(url, websocket.Options{})
			if err != nil {
				b.Error(err)
				return
			}
			wg.Go(func() { _ = s.Run(ctx) })
			wg.Go(func() {
				for range websocket.Messages(ctx, s) {
				}
			})
			if _, err := s.Conn(ctx); err != nil { // one at a time, as the raw rows dial
				b.Error(err)
			}
			failures += s.Status().Failures
		})
		b.ReportMetric(float64(failures), "failed-attempts/redial")
		for _, r := range []struct {
			name string
			m    connMemory
		}{{"raw", raw}, {"raw-heartbeat", beat}, {"redial", sup}} {
			b.ReportMetric(r.m.bytes, "B/"+r.name+"-conn")
			b.ReportMetric(r.m.stack, "B-stack/"+r.name+"-conn")
			b.ReportMetric(r.m.goroutines, "goroutines/"+r.name+"-conn")
			b.ReportMetric(r.m.starting, "B-starting-stack/"+r.name)
		}
		b.ReportMetric(sup.bytes/beat.bytes, "redial/raw-heartbeat")
		b.ReportMetric(sup.bytes/raw.bytes, "redial/raw")
	}
}

func rawDial(b *testing.B, ctx context.Context, url string) *ws.Conn {
	conn, _, err := ws.Dial(ctx, url, nil)
	if err != nil {
		b.Error(err)
		return nil
	}
	return conn
}

func rawRead(ctx context.Context, conn *ws.Conn) {
	_, _, _ = conn.Read(ctx)
	conn.CloseNow()
}

// rawPing is the adapter's heartbeat written by hand: a ping every
// PingInterval, its pong awaited PingTimeout.
func rawPing(ctx context.Context, conn *ws.Conn) {
	t := time.NewTimer(websocket.DefaultPingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, websocket.DefaultPingTimeout)
		err := conn.Ping(pctx)
		cancel()
		if err != nil {
			conn.CloseNow()
			return
		}
		t.Reset(websocket.DefaultPingInterval)
	}
}

// connMemory is what one connection of a row holds, on average, and the
// stack Go started goroutines with.
type connMemory struct{ bytes, stack, goroutines, starting float64 }

// wsMemory opens n connections to url with open, waits until the server
// holds them all and a heartbeat period has passed, and returns the heap
// and stack they added, per connection; then closes them. Each row has a
// server process of its own, and one url string (a program keeps its
// target once).
func wsMemory(b *testing.B, n int, row string, open func(ctx context.Context, wg *sync.WaitGroup, url string)) connMemory {
	srv := startWSServer(b) // a server of its own: the last row's closed connections hold its port's 4-tuples
	defer srv.close()
	url := srv.url()
	h0, s0 := memory()
	g0 := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		open(ctx, &wg, url)
	}
	waitFor(b, func() bool { return srv.number(b, "conns") == n }, 2*time.Minute, row+"'s connections (a heartbeat that failed closes one)")
	time.Sleep(websocket.DefaultPingInterval + 2*time.Second) // the measurement: every heartbeat ran once
	var reads [3]struct{ heap, stack float64 }
	for i := range reads {
		if i > 0 {
			time.Sleep(time.Second)
		}
		reads[i].heap, reads[i].stack = memory()
	}
	slices.SortFunc(reads[:], func(x, y struct{ heap, stack float64 }) int { return cmp.Compare(x.heap+x.stack, y.heap+y.stack) })
	h1, s1 := reads[1].heap, reads[1].stack
	g1 := runtime.NumGoroutine()
	starting := []metrics.Sample{{Name: "/gc/stack/starting-size:bytes"}}
	metrics.Read(starting)
	if *wsMemProfile != "" {
		writeHeapProfile(b, *wsMemProfile+row+".pprof")
	}
	runtime.KeepAlive(ctx)
	cancel()
	wg.Wait()
	waitFor(b, func() bool { return srv.number(b, "conns") == 0 }, time.Minute, "the connections to close")
	return connMemory{bytes: (h1 - h0 + s1 - s0) / float64(n), stack: (s1 - s0) / float64(n), goroutines: float64(g1-g0) / float64(n),
		starting: float64(starting[0].Value.Uint64())}
}

func writeHeapProfile(b *testing.B, file string) {
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}
