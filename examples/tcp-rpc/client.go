package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/backoff"
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
			// A record per state change: connected, each failed attempt
			// and lost connection with its error and the wait, stopped.
			Logger: slog.New(slog.NewTextHandler(w, nil)),
		},
	})
	if err != nil {
		return err
	}
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
