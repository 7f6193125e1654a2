package chaos

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// wsSubject is a WebSocket supervisor (adapters/websocket.New) reading a
// feed through its own proxy, with a reader that ranges over
// websocket.Messages as the adapter asks.
type wsSubject struct {
	subjectBase
	sup    *supervisor.Supervisor[*websocket.Conn]
	stream *feedStream
	feed   *feedCheck
	conns  atomic.Uint64 // connection numbers, one per OnConnect
	url    string
	brk    string // the break this subject carries, if any

	mu    sync.Mutex
	extra []*websocket.Conn // opened by -chaos.break=second-conn or leak-conn
}

func newWSSubject(t testing.TB, i int, srv *wsServer, cfg config, v *violations) *wsSubject {
	name := fmt.Sprintf("ws-%02d", i)
	proxy := toxitest.NewOn(t, lowAddr(t), srv.addr)
	s := &wsSubject{subjectBase: newBase(name, "ws", proxy), feed: newFeedCheck(name, v)}
	if i == 0 {
		s.brk = cfg.brk
	}
	var skipAt uint64
	if s.brk == breakSkipSeq {
		skipAt = 50
	}
	s.stream = newFeedStream(i%2 == 0, skipAt) // half replay, half start fresh
	srv.register(name, s.stream)
	s.url = "ws://" + proxy.Addr() + "/feed?id=" + name
	sup, err := redialws.New(s.url, redialws.Options{
		PingInterval: pingInterval,
		PingTimeout:  pingTimeout,
		CloseTimeout: 500 * time.Millisecond,
		OnConnect:    s.onConnect,
		Supervisor: supervisor.Settings{
			Name:           name,
			Backoff:        cfg.backoff(i),
			StableAfter:    stableAfter,
			ConnectTimeout: connectTimeout,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.sup = sup
	return s
}

// onConnect asks for the feed from the next number this subject wants.
func (s *wsSubject) onConnect(ctx context.Context, c *websocket.Conn) error {
	n := s.conns.Add(1)
	if s.brk == breakSecondConn {
		s.openExtra(ctx, false)
	}
	return c.Write(ctx, websocket.MessageText, fmt.Appendf(nil, "resume %d %d", n, s.feed.want.Load()))
}

func (s *wsSubject) run(ctx context.Context) error { return s.sup.Run(ctx) }

func (s *wsSubject) Status() health.Status { return s.sup.Status() }

func (s *wsSubject) Subscribe() (<-chan health.Status, func()) { return s.sup.Subscribe() }

// consume is the program's reader: a loop over Messages, which ends when
// the supervisor stopped (or ctx ended). A failed read is yielded as an
// error, after which the next connection's messages follow: the feed
// check sees that connection's "start" line.
func (s *wsSubject) consume(ctx context.Context, wg *sync.WaitGroup) {
	wg.Go(func() {
		for msg, err := range redialws.Messages(ctx, s.sup) {
			if err == nil {
				s.feed.onMessage(msg.Data)
				s.messages.Add(1)
			}
		}
	})
}

// work: the server sends, the reader reads; nothing else to do.
func (s *wsSubject) work(context.Context, *sync.WaitGroup) {}

// roundTrip pings over the live connection and waits for the pong, which
// the server's reader answers.
func (s *wsSubject) roundTrip(ctx context.Context) error {
	c, err := s.sup.Conn(ctx)
	if err != nil {
		return err
	}
	return c.Ping(ctx)
}

// fence waits until the reader received the last number the server made.
func (s *wsSubject) fence(ctx context.Context) error {
	s.stream.mu.Lock()
	n := s.stream.next - 1
	s.stream.mu.Unlock()
	return s.feed.waitFor(ctx, n)
}
