// Command postgres-listen follows PostgreSQL notifications with a redial
// Listener: it LISTENs on the channels given, prints every notification,
// and after every reconnect prints that notifications may have been missed
// (the place to resync). Restart the server while it runs to watch it
// recover:
//
//	go run ./examples/postgres-listen -dsn 'postgres://postgres:secret@127.0.0.1:5432/postgres' -channels orders,jobs
//	psql ... -c "NOTIFY orders, 'order 42'"
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
)

func main() {
	dsn := flag.String("dsn", os.Getenv("DATABASE_URL"), "PostgreSQL DSN (URL or key=value); default $DATABASE_URL")
	channels := flag.String("channels", "orders", "comma-separated channels to LISTEN on")
	duration := flag.Duration("duration", 0, "stop after this long (0: until Ctrl-C)")
	flag.Parse()
	if *dsn == "" {
		fmt.Fprint(os.Stderr, howToStart)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	if err := run(ctx, os.Stdout, *dsn, strings.Split(*channels, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "postgres-listen:", err)
		os.Exit(1)
	}
}

const howToStart = `postgres-listen needs a PostgreSQL server: pass -dsn or set DATABASE_URL.
A throwaway one, on Debian (as a user other than root):

  sudo apt-get install postgresql
  /usr/lib/postgresql/*/bin/initdb -D /tmp/pg -U postgres --auth=trust
  /usr/lib/postgresql/*/bin/pg_ctl -D /tmp/pg -o "-p 5499 -k /tmp" -l /tmp/pg.log start
  go run ./examples/postgres-listen -dsn 'postgres://postgres@127.0.0.1:5499/postgres'
  psql -h 127.0.0.1 -p 5499 -U postgres -c "NOTIFY orders, 'order 42'"
`

// run follows the channels until ctx ends.
func run(ctx context.Context, w io.Writer, dsn string, channels []string) error {
	l, err := postgres.NewListener(postgres.ListenerOptions{
		Options: postgres.Options{
			DSN:     dsn,
			Backoff: backoff.Config{Base: 200 * time.Millisecond, Cap: 5 * time.Second},
			Logger:  slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})),
		},
		Channels: channels,
	})
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	fmt.Fprintf(w, "listening on %s as %s; Ctrl-C to stop\n", strings.Join(channels, ", "), l.Name())
	for {
		select {
		case ev := <-l.Events():
			if ev.Missed {
				fmt.Fprintln(w, "reconnected: notifications may have been missed; resync here")
				continue
			}
			fmt.Fprintf(w, "%s: %s\n", ev.Channel, ev.Payload)
		case err := <-done:
			return err
		}
	}
}
