// Command websocket-feed follows a WebSocket feed with redial: it
// subscribes on every connect (OnConnect), reads messages with
// websocket.Read, and reconnects with backoff when the feed drops.
//
//	go run ./examples/websocket-feed -url ws://127.0.0.1:8080/feed -topic prices
//
// Without -url it starts a small local feed that restarts every few
// seconds, so there is something to follow.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/coder/websocket"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

func main() {
	url := flag.String("url", "", "ws:// or wss:// feed to follow (default: a local demo feed)")
	topic := flag.String("topic", "prices", "what to subscribe to")
	duration := flag.Duration("duration", 0, "stop after this long (0: until Ctrl-C)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	if *url == "" {
		feed, err := startLocalFeed(3 * time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, "websocket-feed:", err)
			os.Exit(1)
		}
		defer feed.Close()
		*url = feed.URL
	}
	if err := follow(ctx, os.Stdout, *url, *topic); err != nil {
		fmt.Fprintln(os.Stderr, "websocket-feed:", err)
		os.Exit(1)
	}
}

// follow prints the feed's messages until ctx ends.
func follow(ctx context.Context, w io.Writer, url, topic string) error {
	var feed *supervisor.Supervisor[*websocket.Conn]
	feed, err := redialws.New(redialws.Options{
		URL: url,
		// After a close 1012 (service restart) or 1013, wait at least 1s
		// (the adapter's default is 5s): the local feed restarts quickly.
		CloseHint: time.Second,
		Supervisor: supervisor.Options[*websocket.Conn]{
			Backoff: backoff.Config{Base: 200 * time.Millisecond, Cap: 10 * time.Second},
			// OnConnect runs after every (re)connect, before the state is
			// Connected: the subscription is always in place when Read runs.
			OnConnect: func(ctx context.Context, c *websocket.Conn) error {
				fmt.Fprintf(w, "connected (#%d): subscribing to %s\n", feed.Status().Connects+1, topic)
				return c.Write(ctx, websocket.MessageText, []byte("subscribe "+topic))
			},
		},
	})
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- feed.Run(ctx) }()
	for ctx.Err() == nil {
		_, msg, err := redialws.Read(ctx, feed) // waits for a live connection
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(w, "lost: %v (reconnecting)\n", err)
			}
			continue
		}
		fmt.Fprintf(w, "%s\n", msg)
	}
	return <-done
}
