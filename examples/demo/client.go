package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// client follows the feed: it subscribes from the last tick it saw on
// every connect and counts what arrives.
type client struct {
	feed *supervisor.Supervisor[*websocket.Conn]
	last atomic.Int64 // the newest tick received

	received, lost, duplicates int64 // the reading goroutine's
}

func newClient(url string, c config, out *console) (*client, error) {
	cl := &client{}
	var err error
	cl.feed, err = redialws.New(url, redialws.Options{
		PingInterval: 500 * time.Millisecond, // a silent server is found within 1s
		PingTimeout:  500 * time.Millisecond,
		CloseHint:    300 * time.Millisecond,
		// No Name: the supervisor is named by its URL, redacted, in errors
		// and the header (the registry calls it "feed").
		Supervisor: supervisor.Settings{
			Backoff:        backoff.Config{Base: c.Base, Cap: c.Cap},
			MaxAttempts:    c.MaxAttempts,
			StableAfter:    3 * time.Second,
			ConnectTimeout: 2 * time.Second,
			Logger:         slog.New(timeline{out}),
		},
		OnConnect: func(ctx context.Context, conn *websocket.Conn) error {
			from := cl.last.Load()
			out.printf("subscribing from tick %d", from)
			return conn.Write(ctx, websocket.MessageText, []byte("subscribe from="+strconv.FormatInt(from, 10)))
		},
	})
	return cl, err
}

// run runs the supervisor, reads the feed and reports readiness changes
// until ctx ends or the feed refuses for good.
func (cl *client) run(ctx context.Context, probe *probe, out *console) error {
	var wg sync.WaitGroup
	wg.Go(func() { _ = cl.feed.Run(ctx) })
	wg.Go(func() { cl.watchReadiness(ctx, probe, out) })
	pctx, stopProgress := context.WithCancel(ctx)
	wg.Go(func() { cl.progress(pctx, out) })
	// Messages waits while there is no connection and ends when ctx ends
	// or the supervisor gives up: this loop cannot spin.
	for msg, err := range redialws.Messages(ctx, cl.feed) {
		if err != nil {
			continue // the supervisor reconnects; the next message comes from the next connection
		}
		cl.count(strings.TrimPrefix(string(msg.Data), "tick "))
	}
	stopProgress()
	wg.Wait()
	return cl.feed.Err()
}

// count checks a tick's sequence number against the last one.
func (cl *client) count(text string) {
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return
	}
	last := cl.last.Load()
	switch {
	case n <= last:
		cl.duplicates++
	case n > last+1:
		cl.lost += n - last - 1 // never happens: the server replays from "from"
		fallthrough
	default:
		cl.received++
		cl.last.Store(n)
	}
}

// progress prints the ticks received each second.
func (cl *client) progress(ctx context.Context, out *console) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var prev int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n := cl.last.Load(); n != prev {
			out.printf("   ... ticks up to #%d", n)
			prev = n
		}
	}
}

// watchReadiness asks the readiness endpoint after every state change and
// prints its answer when it changes.
func (cl *client) watchReadiness(ctx context.Context, probe *probe, out *console) {
	ch, unsub := cl.feed.Subscribe()
	defer unsub()
	last := 0
	for range ch { // closed after the final status: Stopped or Failed
		if code := probe.get(ctx); code != 0 && code != last {
			out.printf("   readiness: %d", code)
			last = code
		}
	}
}

func (cl *client) summary(w io.Writer) {
	st := cl.feed.Status()
	fmt.Fprintf(w, "\nsummary: %d connects, %d failed attempts, longest outage %v, %d ticks received in order, %d lost, %d duplicates dropped\n",
		st.Connects, st.Failures, st.LongestOutage.Round(time.Millisecond), cl.received, cl.lost, cl.duplicates)
}
