package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// feedServer is a flaky WebSocket feed. It numbers its ticks and keeps the
// last ones, so a client that subscribes "from=N" gets every tick after N:
// nothing is lost across reconnects. It misbehaves on a seeded schedule:
// it drops connections after a few seconds (a 1012 "service restart" or an
// abrupt close), goes silent now and then, and sometimes answers handshakes
// with 503 and Retry-After during a short maintenance.
type feedServer struct {
	ln   net.Listener
	http *http.Server
	stop chan struct{}
	wg   sync.WaitGroup

	mu          sync.Mutex
	closed      bool // no new handler may start: wg is being waited for
	rng         *rand.Rand
	ticks       []int64       // every tick so far, ticks[i] == i+1
	changed     chan struct{} // closed on the next tick
	maintenance time.Time     // handshakes get 503 until then
}

const tickEvery = 100 * time.Millisecond

func startFeed(seed uint64) (*feedServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &feedServer{ln: ln, stop: make(chan struct{}), rng: rand.New(rand.NewPCG(seed, 1)), changed: make(chan struct{})}
	f.http = &http.Server{Handler: http.HandlerFunc(f.serve), ReadHeaderTimeout: 5 * time.Second}
	f.wg.Go(f.tick)
	f.wg.Go(func() { _ = f.http.Serve(ln) })
	return f, nil
}

// URL is the feed's address; the token in it is there to show that it
// never appears in the timeline.
func (f *feedServer) URL() string { return "ws://" + f.ln.Addr().String() + "/ticks?token=demo-secret" }

// Close stops the server and every connection it has.
func (f *feedServer) Close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	close(f.stop)
	_ = f.http.Close() // hijacked WebSocket connections are closed by their handlers, which see stop
	f.wg.Wait()
}

func (f *feedServer) tick() {
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
		}
		f.mu.Lock()
		f.ticks = append(f.ticks, int64(len(f.ticks)+1))
		close(f.changed)
		f.changed = make(chan struct{})
		f.mu.Unlock()
	}
}

// after returns the ticks after seq and a channel closed on the next one.
func (f *feedServer) after(seq int64) ([]int64, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	seq = min(max(seq, 0), int64(len(f.ticks)))
	return f.ticks[seq:], f.changed
}

// plan is what the server will do to one connection.
type plan struct {
	lifetime time.Duration
	silent   bool // stop answering (no data, no pongs) instead of closing
	restart  bool // close with 1012 rather than abruptly
}

func (f *feedServer) next() (p plan, refuse bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if time.Now().Before(f.maintenance) {
		return p, true
	}
	p.lifetime = time.Duration(2000+f.rng.IntN(3000)) * time.Millisecond
	switch r := f.rng.IntN(10); {
	case r < 2:
		p.silent = true
	case r < 6:
		p.restart = true
	}
	if f.rng.IntN(4) == 0 { // after this connection, a short maintenance
		f.maintenance = time.Now().Add(p.lifetime + time.Duration(500+f.rng.IntN(1500))*time.Millisecond)
	}
	return p, false
}

// enter counts a handler in, unless the server is closing.
func (f *feedServer) enter() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.wg.Add(1)
	return true
}

func (f *feedServer) serve(w http.ResponseWriter, r *http.Request) {
	if !f.enter() {
		return
	}
	defer f.wg.Done()
	p, refuse := f.next()
	if refuse {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()

	_, msg, err := c.Read(ctx) // "subscribe from=N"
	if err != nil {
		return
	}
	from, _ := strconv.ParseInt(strings.TrimPrefix(string(msg), "subscribe from="), 10, 64)
	end := time.NewTimer(p.lifetime)
	defer end.Stop()
	if !p.silent {
		f.wg.Go(func() { _, _, _ = c.Read(ctx) }) // answers pings, sees the client leave; ends with c
	}
	for sent := from; ; {
		ticks, changed := f.after(sent)
		if !p.silent {
			for _, n := range ticks {
				if c.Write(ctx, websocket.MessageText, []byte(fmt.Sprintf("tick %d", n))) != nil {
					return
				}
				sent = n
			}
		}
		select {
		case <-changed:
		case <-f.stop:
			return
		case <-ctx.Done():
			return
		case <-end.C:
			if p.restart {
				_ = c.Close(websocket.StatusServiceRestart, "restarting")
			}
			return
		}
	}
}
