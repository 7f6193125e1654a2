package storm

import (
	"context"
	"flag"
	"runtime"
	"sync"
	"testing"
	"time"

	ws "github.com/coder/websocket"

	"github.com/redial-go/redial/adapters/websocket"
)

var wsMemN = flag.Int("storm.memn", 10000, "WebSocket memory: connections")

// BenchmarkWebSocketMemory holds -storm.memn (10,000) WebSocket
// connections to a server in another process, twice in one run: raw,
// each a connection from coder/websocket's Dial read by one goroutine
// (conn.Read, as a program that reads a feed does); redial, each a
// websocket.New supervisor with its defaults (heartbeat every 10 s) read
// by a loop over websocket.Messages. Reported per connection, after the
// heartbeat ran at least once and two GCs: the live heap and the stacks
// (what the Go runtime holds for the connection; the kernel's socket
// buffers are the same for both and not counted). Run with -benchtime=1x.
func BenchmarkWebSocketMemory(b *testing.B) {
	n := *wsMemN
	srv := startWSServer(b)
	defer srv.close()
	for range b.N {
		raw := wsMemory(b, srv, n, func(ctx context.Context, wg *sync.WaitGroup) {
			conn, _, err := ws.Dial(ctx, srv.url(), nil)
			if err != nil {
				b.Error(err)
				return
			}
			wg.Go(func() {
				_, _, _ = conn.Read(ctx)
				conn.CloseNow()
			})
		})
		sup := wsMemory(b, srv, n, func(ctx context.Context, wg *sync.WaitGroup) {
			s, err := websocket.New(srv.url(), websocket.Options{})
			if err != nil {
				b.Error(err)
				return
			}
			wg.Go(func() { _ = s.Run(ctx) })
			wg.Go(func() {
				for range websocket.Messages(ctx, s) {
				}
			})
		})
		b.ReportMetric(raw, "B/raw-conn")
		b.ReportMetric(sup, "B/redial-conn")
		b.ReportMetric(sup/raw, "redial/raw")
	}
}

// wsMemory opens n connections with open, waits until the server holds
// them all and a heartbeat period has passed, and returns the heap and
// stack they added, per connection; then closes them.
func wsMemory(b *testing.B, srv *wsServerProc, n int, open func(context.Context, *sync.WaitGroup)) float64 {
	h0, s0 := memory()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		open(ctx, &wg)
	}
	waitFor(b, func() bool { return srv.number(b, "conns") == n }, 2*time.Minute, "the connections")
	time.Sleep(websocket.DefaultPingInterval + 2*time.Second) // the measurement: every heartbeat ran once
	h1, s1 := memory()
	runtime.KeepAlive(ctx)
	cancel()
	wg.Wait()
	waitFor(b, func() bool { return srv.number(b, "conns") == 0 }, time.Minute, "the connections to close")
	return (h1 - h0 + s1 - s0) / float64(n)
}
