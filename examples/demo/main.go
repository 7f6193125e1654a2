// Command demo shows redial keeping a WebSocket feed alive against a flaky
// server, in one process, with nothing to set up:
//
//	go run ./examples/demo
//	go run ./examples/demo -url ws://127.0.0.1:8080/feed   # a feed of your own
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
)

// config is the demo's flags. The backoff is demo-sized: the library's
// defaults are Base 1s and Cap 1 minute.
type config struct {
	Duration time.Duration
	Base     time.Duration
	Cap      time.Duration
	Seed     uint64
	URL      string // a feed of one's own instead of the embedded flaky one
	// MaxAttempts gives up after that many failed attempts in a row; 0
	// never does.
	MaxAttempts int
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command: it parses args, runs the demo and returns the exit
// code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c config
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&c.Duration, "duration", 20*time.Second, "how long to run")
	fs.DurationVar(&c.Base, "base", 100*time.Millisecond, "backoff base (the library's default is 1s)")
	fs.DurationVar(&c.Cap, "cap", 2*time.Second, "backoff cap (the library's default is 1m)")
	fs.Uint64Var(&c.Seed, "seed", uint64(time.Now().UnixNano()), "the flaky server's seed")
	fs.StringVar(&c.URL, "url", "", "follow this ws:// feed instead of the embedded flaky one")
	fs.IntVar(&c.MaxAttempts, "max-attempts", 0, "give up after this many failed attempts in a row (0: never)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := demo(ctx, stdout, c); err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return 1
	}
	return 0
}

// demo runs the demo until ctx ends or c.Duration has passed, writing to
// w. It returns the supervisor's error when the feed refuses for good.
func demo(ctx context.Context, w io.Writer, c config) error {
	if c.Duration <= 0 {
		return fmt.Errorf("-duration %v must be positive", c.Duration)
	}
	ctx, cancel := context.WithTimeout(ctx, c.Duration)
	defer cancel()

	url := c.URL
	if url == "" {
		srv, err := startFeed(c.Seed)
		if err != nil {
			return err
		}
		defer srv.Close()
		url = srv.URL()
	}
	out := &console{w: w, start: time.Now()}
	fmt.Fprintf(w, "redial demo: following a flaky WebSocket feed for %v (seed %d)\n", c.Duration, c.Seed)
	fmt.Fprintf(w, "backoff: decorrelated jitter, base %v, cap %v (demo-sized; the library's defaults are 1s and 1m)\n", c.Base, c.Cap)

	client, err := newClient(url, c, out)
	if err != nil {
		return err
	}
	probe, err := startProbe(client)
	if err != nil {
		return err
	}
	defer probe.Close()
	fmt.Fprintf(w, "feed:      %s  (its token never shows: redacted)\nreadiness: %s  (curl it while the demo runs)\nstatus:    %s  (open it in a browser)\n\n", client.feed.Name(), probe.URL(), probe.StatusURL())

	if err := client.run(ctx, probe, out); err != nil {
		return err
	}
	client.summary(w)
	return nil
}
