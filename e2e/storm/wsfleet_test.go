package storm

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	cenkalti "github.com/cenkalti/backoff/v5"
	ws "github.com/coder/websocket"

	"github.com/redial-go/redial/adapters/websocket"
)

// wsStrategies are the clients the WebSocket storm compares, by name:
// redial's supervisor with its defaults, and three plain reconnect loops
// around github.com/coder/websocket's Dial: no jitter (1 s, 2 s, 4 s...,
// capped at 1 minute), cenkalti/backoff/v5's Retry with its defaults,
// and gRPC's connection backoff (1 s, x1.6, ±20 %, 120 s cap). Every loop
// dials at once after a loss, then waits its strategy's delays.
var wsStrategies = []string{"redial", "no-jitter", "cenkalti-v5", "grpc"}

// wsFleet is n clients of one strategy, each holding one connection and
// reading it, so that it sees the loss at once.
type wsFleet struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startWSFleet(strategy, url string, n int) *wsFleet {
	ctx, cancel := context.WithCancel(context.Background())
	f := &wsFleet{cancel: cancel}
	for i := range n {
		switch strategy {
		case "redial", "redial-stable2s":
			var o websocket.Options
			if strategy == "redial-stable2s" { // a loss after 2 s counts as stable: a test needs no 31 s hold
				o.Supervisor.StableAfter = 2 * time.Second
			}
			s, err := websocket.New(url, o)
			if err != nil {
				panic(err) // a constant, valid url
			}
			f.wg.Go(func() { _ = s.Run(ctx) })
			f.wg.Go(func() {
				for range websocket.Messages(ctx, s) { // yields nothing but the losses
				}
			})
		case "cenkalti-v5":
			f.wg.Go(func() {
				for ctx.Err() == nil {
					conn, err := cenkalti.Retry(ctx, func() (*ws.Conn, error) { return dial(ctx, url) })
					if err == nil {
						hold(ctx, conn)
					}
				}
			})
		default:
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			f.wg.Go(func() { loop(ctx, url, strategy, rng) })
		}
	}
	return f
}

// stop ends every client and waits for them; calling it again is fine.
func (f *wsFleet) stop() { f.cancel(); f.wg.Wait() }

// dial makes one handshake, bounded as a supervisor's attempt is (10 s).
func dial(ctx context.Context, url string) (*ws.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, _, err := ws.Dial(ctx, url, nil)
	return conn, err
}

// hold reads conn until it fails (the server sends nothing: the loss).
func hold(ctx context.Context, conn *ws.Conn) {
	_, _, _ = conn.Read(ctx)
	conn.CloseNow()
}

// loop is a plain reconnect loop: dial at once, then wait the strategy's
// next delay after each failure; reset after a connection.
func loop(ctx context.Context, url, strategy string, rng *rand.Rand) {
	for ctx.Err() == nil {
		for n := 0; ; n++ {
			conn, err := dial(ctx, url)
			if err == nil {
				hold(ctx, conn)
				break
			}
			t := time.NewTimer(delay(strategy, n, rng))
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
	}
}

// delay is the wait after the n-th consecutive failure (from 0).
func delay(strategy string, n int, rng *rand.Rand) time.Duration {
	switch strategy {
	case "no-jitter":
		return min(time.Second<<min(n, 30), time.Minute)
	case "grpc": // grpc-go's connection backoff: Base 1s, Multiplier 1.6, Jitter 0.2, MaxDelay 120s
		d := float64(time.Second)
		for i := 0; i < n && d < float64(120*time.Second); i++ {
			d *= 1.6
		}
		d = min(d, float64(120*time.Second))
		return time.Duration(d * (1 + 0.2*(rng.Float64()*2-1)))
	}
	panic("storm: unknown strategy " + strategy)
}
