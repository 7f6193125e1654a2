package websocket_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/coder/websocket"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// A feed subscribes again after a kill, and its readiness tells the truth:
// not ready while it is down (the proxy refuses), ready once resubscribed.
// In a test, redialtest.NewProxy(t, addr) closes the proxy at the test's end.
// (Here rather than in redialtest, whose tests import no WebSocket module.)
func Example_resubscribe() {
	srv := httptest.NewServer(http.HandlerFunc(prices))
	defer srv.Close()
	proxy, _ := redialtest.StartProxy(srv.Listener.Addr().String())
	defer proxy.Close()
	feed, _ := redialws.New("ws://"+proxy.Addr(), redialws.Options{
		OnConnect:  subscribe, // after every connect: the program's own
		Supervisor: supervisor.Settings{Backoff: backoff.Config{Base: 10 * time.Millisecond}},
	})
	var probes health.Registry
	probes.Add("feed", feed, health.SourceOptions{Critical: true})
	states, _ := feed.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go feed.Run(ctx)
	for msg, err := range redialws.Messages(ctx, feed) {
		if err != nil { // killed: once the feed says it is down, heal
			for (<-states).State == health.Connected {
			}
			fmt.Println("lost, ready:", probes.Ready())
			proxy.Heal()
			continue
		}
		fmt.Printf("%s, connection %d, ready: %v\n", msg.Data, feed.Status().Connects, probes.Ready())
		if feed.Status().Connects == 2 {
			return
		}
		proxy.Refuse() // no reconnect until Heal
		proxy.Kill()
	}
	// Output:
	// prices: 100, connection 1, ready: true
	// lost, ready: false
	// prices: 100, connection 2, ready: true
}

// subscribe is the feed's OnConnect: it subscribes on each new connection.
func subscribe(ctx context.Context, c *websocket.Conn) error {
	return c.Write(ctx, websocket.MessageText, []byte("prices"))
}

// prices is a WebSocket server that answers a subscription with a price.
func prices(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	if _, topic, err := c.Read(r.Context()); err == nil {
		_ = c.Write(r.Context(), websocket.MessageText, append(topic, ": 100"...))
		_, _, _ = c.Read(r.Context()) // until the client leaves
	}
}
