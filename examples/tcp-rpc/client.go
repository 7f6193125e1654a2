package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/examples/internal/retries"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// client asks for a quote every 500ms until ctx ends (nil) or the server
// refuses for good (the supervisor's error). Calls made while the server
// is away wait for the next connection (bounded by their ctx).
func client(ctx context.Context, w io.Writer, addr string, maxAttempts int) error {
	r, err := rpc.New(addr, rpc.Options{
		// The methods the server calls on us: registered again on every
		// new connection, before it reads.
		Handlers: map[string]any{
			"Client.Name": func(_ *rpc2.Client, _ struct{}, name *string) error {
				*name = "tcp-rpc example"
				return nil
			},
		},
		PingInterval: time.Second, // a silent server is found within 1.5s
		PingTimeout:  500 * time.Millisecond,
		Supervisor: supervisor.Settings{
			Backoff:     backoff.Config{Base: 100 * time.Millisecond, Cap: 2 * time.Second},
			MaxAttempts: maxAttempts,
		},
	})
	if err != nil {
		return err
	}
	printed := retries.Print(w, r) // a line per failed attempt or lost connection
	defer printed()
	watched := make(chan struct{})
	go func() { watch(w, r); close(watched) }()
	defer func() { <-watched }()
	go func() { _ = r.Run(ctx) }()

	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-r.Done(): // ctx ended, or the server refused for good
			return r.Err()
		case <-tick.C:
		}
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		var price string
		err := r.Call(cctx, "Server.Quote", "ACME", &price)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintln(w, "client: call failed:", err)
			}
			continue
		}
		fmt.Fprintln(w, "client:", price)
	}
}

// watch prints the supervisor's state changes until the final one; the
// retries' lines say the rest.
func watch(w io.Writer, r *rpc.Client) {
	ch, unsub := r.Subscribe()
	defer unsub()
	for st := range ch { // closed after Stopped or Failed
		if st.State != health.Backoff {
			fmt.Fprintf(w, "client: %s\n", st.State)
		}
	}
}
