package gorilla_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// A price feed that restarts (close 1012) after its first price: the
// client reconnects and OnConnect subscribes again.
func Example() {
	var conns atomic.Int64
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		n := conns.Add(1)
		_, msg, err := c.ReadMessage() // "subscribe prices"
		if err != nil {
			return
		}
		price := fmt.Sprintf("%s: %d", strings.TrimPrefix(string(msg), "subscribe "), 99+n)
		if c.WriteMessage(websocket.TextMessage, []byte(price)) != nil {
			return
		}
		if n == 1 {
			c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseServiceRestart, "deploying"), time.Now().Add(time.Second))
			c.ReadMessage() // the client's answer
			return
		}
		c.ReadMessage() // until the client leaves
	}))
	defer srv.Close()

	var feed *supervisor.Supervisor[*websocket.Conn]
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/prices?token=s3cr3t"
	feed, err := gorilla.New(url, gorilla.Options{
		CloseHint: 10 * time.Millisecond, // a test server restarts fast
		OnConnect: func(ctx context.Context, c *websocket.Conn) error {
			if st := feed.Status(); st.Err != nil {
				fmt.Println("resubscribing after", gorilla.CloseStatus(st.Err))
			}
			return c.WriteMessage(websocket.TextMessage, []byte("subscribe prices"))
		},
		Supervisor: supervisor.Settings{
			Backoff: backoff.Config{Base: 10 * time.Millisecond, Cap: 100 * time.Millisecond},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- feed.Run(ctx) }()

	got := 0
	for msg, err := range gorilla.Messages(ctx, feed) {
		if err != nil {
			continue // lost (messages may be missed): the next connection's follow
		}
		fmt.Println(string(msg.Data))
		if got++; got == 2 {
			break // leaves the connection alone: Run closes it politely
		}
	}
	cancel()
	// The Name is the URL without its token.
	fmt.Println(<-done, feed.Status().Connects, strings.Replace(feed.Name(), srv.Listener.Addr().String(), "HOST", 1))
	// Output:
	// prices: 100
	// resubscribing after 1012
	// prices: 101
	// <nil> 2 ws://HOST/prices?token=xxxxx
}
