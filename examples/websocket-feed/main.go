// Command websocket-feed follows a WebSocket feed with redial: it
// subscribes on every connect (OnConnect), reads messages with the
// websocket.Messages iterator, and reconnects with backoff when the feed
// drops, logging every retry (slog, on stdout). When the feed refuses for
// good (a handshake answered 401, say), or -max-attempts attempts in a row
// failed, the iterator ends and the command exits non-zero with the reason.
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
	"log/slog"
	"os"
	"os/signal"
	"time"

	"github.com/coder/websocket"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("websocket-feed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "", "ws:// or wss:// feed to follow (default: a local demo feed)")
	topic := fs.String("topic", "prices", "what to subscribe to")
	duration := fs.Duration("duration", 0, "stop after this long (0: until Ctrl-C)")
	maxAttempts := fs.Int("max-attempts", 0, "give up after this many failed attempts in a row (0: never)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	if *url == "" {
		feed, err := startLocalFeed(3 * time.Second)
		if err != nil {
			fmt.Fprintln(stderr, "websocket-feed:", err)
			return 1
		}
		defer feed.Close()
		*url = feed.URL
	}
	if err := follow(ctx, stdout, *url, *topic, *maxAttempts); err != nil {
		fmt.Fprintln(stderr, "websocket-feed:", err)
		return 1
	}
	return 0
}

// follow prints the feed's messages and logs every retry until ctx ends
// (nil) or the feed refuses for good (the supervisor's error).
// w is written from several goroutines and must allow it, as os.Stdout does.
func follow(ctx context.Context, w io.Writer, url, topic string, maxAttempts int) error {
	var feed *supervisor.Supervisor[*websocket.Conn]
	feed, err := redialws.New(url, redialws.Options{
		// After a close 1012 (service restart) or 1013, wait at least 1s
		// (the adapter's default is 5s): the local feed restarts quickly.
		CloseHint: time.Second,
		Supervisor: supervisor.Settings{
			Backoff:     backoff.Config{Base: 200 * time.Millisecond, Cap: 10 * time.Second},
			MaxAttempts: maxAttempts,
			// A record per state change: each failed attempt and lost
			// connection with its (redacted) error and the wait.
			Logger: slog.New(slog.NewTextHandler(w, nil)),
		},
		// OnConnect runs after every (re)connect, before the state is
		// Connected: the subscription is always in place when messages
		// are read.
		OnConnect: func(ctx context.Context, c *websocket.Conn) error {
			fmt.Fprintf(w, "connected (#%d): subscribing to %s\n", feed.Status().Connects+1, topic)
			return c.Write(ctx, websocket.MessageText, []byte("subscribe "+topic))
		},
	})
	if err != nil {
		return err
	}
	go func() { _ = feed.Run(ctx) }()
	// The loop waits while there is no connection and ends when ctx ends
	// or the feed refuses for good: it cannot spin.
	for msg, err := range redialws.Messages(ctx, feed) {
		if err != nil {
			fmt.Fprintf(w, "lost: %v\n", err) // messages may have been missed
			continue
		}
		fmt.Fprintf(w, "%s\n", msg.Data)
	}
	<-feed.Done()
	return feed.Err()
}
