// Command tcp-rpc shows a bidirectional RPC session (github.com/cenkalti/rpc2)
// kept alive by redial: the client calls the server, the server calls back
// into the client, and when the server restarts the client reconnects and
// its handlers are registered again on the new connection.
//
//	go run ./examples/tcp-rpc                        # server and client in one process; the server restarts once
//	go run ./examples/tcp-rpc -serve 127.0.0.1:9000  # a server of its own (Ctrl-C and start it again)
//	go run ./examples/tcp-rpc -addr 127.0.0.1:9000   # a client of it
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tcp-rpc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	serve := fs.String("serve", "", "run only a server on this address")
	addr := fs.String("addr", "", "run only a client of the server at this address")
	duration := fs.Duration("duration", 0, "stop after this long (0: until Ctrl-C; 6s without -serve and -addr)")
	maxAttempts := fs.Int("max-attempts", 0, "with -addr: give up after this many failed attempts in a row (0: never)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *duration == 0 && *serve == "" && *addr == "" {
		*duration = 6 * time.Second
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	var err error
	switch {
	case *serve != "":
		err = serveOnly(ctx, stdout, *serve)
	case *addr != "":
		err = client(ctx, stdout, *addr, *maxAttempts)
	default:
		err = both(ctx, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "tcp-rpc:", err)
		return 1
	}
	return 0
}

// serveOnly runs a server until ctx ends.
func serveOnly(ctx context.Context, w io.Writer, addr string) error {
	s, err := startServer(addr, w)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "serving on %s\n", s.addr)
	<-ctx.Done()
	s.stop()
	return nil
}

// both runs a server and a client; the server restarts after 2s.
func both(ctx context.Context, w io.Writer) error {
	s, err := startServer("127.0.0.1:0", w)
	if err != nil {
		return err
	}
	restarted := make(chan error, 1)
	timer := time.AfterFunc(2*time.Second, func() {
		fmt.Fprintln(w, "server: restarting")
		s.stop()
		var err error
		s, err = startServer(s.addr, w)
		restarted <- err
	})
	err = client(ctx, w, s.addr, 0)
	if !timer.Stop() {
		if rerr := <-restarted; rerr != nil && err == nil {
			err = rerr
		}
	}
	s.stop()
	return err
}
