// Command sse-feed follows a Server-Sent Events stream with redial: it
// reads events with the sse.Client's Events iterator, and when the stream
// breaks it reconnects with backoff (at least as long as the server's
// `retry:` asks) and resumes after the last event it printed
// (Last-Event-ID), so a server that keeps history loses nothing; every
// retry is logged (slog, on stdout). When the server refuses for good (401, 403, 404, 204, or
// an answer that is not an event stream), or -max-attempts attempts in a
// row failed, the iterator ends and the command exits non-zero with the
// reason.
//
//	go run ./examples/sse-feed -url https://127.0.0.1:8080/events
//
// Without -url it starts a small local feed that ticks every 200ms and
// drops every stream after 3s, so there is something to follow.
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

	"github.com/redial-go/redial/adapters/sse"
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
	fs := flag.NewFlagSet("sse-feed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "", "http:// or https:// event stream to follow (default: a local demo feed)")
	lastID := fs.String("last-event-id", "", "resume after this event id (default: from what the server sends a new client)")
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
		feed, err := startLocalFeed(3*time.Second, 200*time.Millisecond, time.Second)
		if err != nil {
			fmt.Fprintln(stderr, "sse-feed:", err)
			return 1
		}
		defer feed.Close()
		*url = feed.URL
		fmt.Fprintf(stdout, "following the local feed at %s (it drops every stream after 3s)\n", feed.URL)
	}
	if err := follow(ctx, stdout, *url, *lastID, *maxAttempts); err != nil {
		fmt.Fprintln(stderr, "sse-feed:", err)
		return 1
	}
	return 0
}

// follow prints the stream's events and logs every retry until ctx ends (nil)
// or the server refuses for good (the Client's error).
// w is written from several goroutines and must allow it, as os.Stdout does.
func follow(ctx context.Context, w io.Writer, url, lastID string, maxAttempts int) error {
	feed, err := sse.New(url, sse.Options{
		LastEventID: lastID,
		Supervisor: supervisor.Settings{
			Backoff:     backoff.Config{Base: 200 * time.Millisecond, Cap: 10 * time.Second},
			MaxAttempts: maxAttempts,
			// A record per state change: each failed attempt and lost
			// stream with its (redacted) error and the wait.
			Logger: slog.New(slog.NewTextHandler(w, nil)),
		},
	})
	if err != nil {
		return err
	}
	go func() { _ = feed.Run(ctx) }()
	// The loop waits while there is no stream and ends when ctx ends or
	// the server refuses for good: it cannot spin.
	for ev, err := range feed.Events(ctx) {
		if err != nil {
			fmt.Fprintf(w, "lost: %v (resuming after event %q)\n", err, feed.LastEventID())
			continue
		}
		fmt.Fprintf(w, "%s %s: %s\n", ev.ID, eventType(ev), ev.Data)
	}
	<-feed.Done()
	return feed.Err()
}

// eventType is the event's type as EventSource names it.
func eventType(ev sse.Event) string {
	if ev.Type == "" {
		return "message"
	}
	return ev.Type
}
