// Command demo shows redial keeping a WebSocket feed alive against a flaky
// server, in one process, with nothing to set up:
//
//	go run ./examples/demo
//
// It starts an embedded feed server that drops connections every few
// seconds, restarts (close 1012), goes silent, and answers handshakes with
// 503 and Retry-After during short maintenances; a redial supervisor that
// follows the feed and resubscribes on every connect, resuming from the
// last tick it saw; and a readiness endpoint on 127.0.0.1. It prints a
// timeline of every state change, the delay chosen and why, the messages
// and the readiness answer, then a summary, and exits 0 after -duration.
// Ctrl-C ends it early, cleanly.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/redial-go/redial/health"
)

// config is the demo's flags. The backoff is demo-sized: the library's
// defaults are Base 1s and Cap 1 minute.
type config struct {
	Duration time.Duration
	Base     time.Duration
	Cap      time.Duration
	Seed     uint64
}

func main() {
	var c config
	flag.DurationVar(&c.Duration, "duration", 20*time.Second, "how long to run")
	flag.DurationVar(&c.Base, "base", 100*time.Millisecond, "backoff base (the library's default is 1s)")
	flag.DurationVar(&c.Cap, "cap", 2*time.Second, "backoff cap (the library's default is 1m)")
	flag.Uint64Var(&c.Seed, "seed", uint64(time.Now().UnixNano()), "the flaky server's seed")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, c); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// run runs the demo until ctx ends or c.Duration has passed, writing to w.
func run(ctx context.Context, w io.Writer, c config) error {
	if c.Duration <= 0 {
		return fmt.Errorf("-duration %v must be positive", c.Duration)
	}
	ctx, cancel := context.WithTimeout(ctx, c.Duration)
	defer cancel()

	srv, err := startFeed(c.Seed)
	if err != nil {
		return err
	}
	defer srv.Close()
	out := &console{w: w, start: time.Now()}
	fmt.Fprintf(w, "redial demo: following a flaky WebSocket feed for %v (seed %d)\n", c.Duration, c.Seed)
	fmt.Fprintf(w, "backoff: decorrelated jitter, base %v, cap %v (demo-sized; the library's defaults are 1s and 1m)\n", c.Base, c.Cap)

	client, err := newClient(srv.URL(), c, out)
	if err != nil {
		return err
	}
	probe, err := startProbe(client)
	if err != nil {
		return err
	}
	defer probe.Close()
	fmt.Fprintf(w, "feed:      %s  (its token never shows: redacted)\nreadiness: %s  (curl it while the demo runs)\n\n", health.Redact(srv.URL()), probe.URL())

	if err := client.run(ctx, probe, out); err != nil {
		return err
	}
	client.summary(w)
	return nil
}
