package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// localFeed is a small feed for trying the example without a server of
// your own: after "subscribe TOPIC" it sends "TOPIC: N" every 200ms and
// restarts (close 1012) after lifetime.
type localFeed struct {
	*httptest.Server
	URL string
}

func startLocalFeed(lifetime time.Duration) (*localFeed, error) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		_, msg, err := c.Read(r.Context())
		if err != nil {
			return
		}
		topic := strings.TrimPrefix(string(msg), "subscribe ")
		ctx := c.CloseRead(r.Context()) // answers pings; ends when the client leaves
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		end := time.After(lifetime)
		for {
			select {
			case <-ctx.Done():
				return
			case <-end:
				_ = c.Close(websocket.StatusServiceRestart, "restarting")
				return
			case <-tick.C:
				if c.Write(ctx, websocket.MessageText, []byte(fmt.Sprintf("%s: %d", topic, n.Add(1)))) != nil {
					return
				}
			}
		}
	}))
	return &localFeed{Server: srv, URL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/feed"}, nil
}
