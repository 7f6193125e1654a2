// Command postgres-listen follows PostgreSQL notifications with a redial
// Listener: it LISTENs on the channels given, prints every notification,
// and after every reconnect prints that notifications may have been missed
// (the place to resync). Its log says every state change: each retry
// with the wait before the next one, and why it gave up. Restart the
// server while it runs to watch it recover:
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
	fs := flag.NewFlagSet("postgres-listen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dsn := fs.String("dsn", os.Getenv("DATABASE_URL"), "PostgreSQL DSN (URL or key=value); default $DATABASE_URL")
	channels := fs.String("channels", "orders", "comma-separated channels to LISTEN on")
	duration := fs.Duration("duration", 0, "stop after this long (0: until Ctrl-C)")
	maxAttempts := fs.Int("max-attempts", 0, "give up after this many failed attempts in a row (0: never)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dsn == "" {
		fmt.Fprint(stderr, howToStart)
		return 2
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	if err := listen(ctx, stdout, *dsn, strings.Split(*channels, ","), *maxAttempts); err != nil {
		// One line: pgx puts each host and fallback it tried on a line
		// of its own.
		fmt.Fprintln(stderr, "postgres-listen:", strings.Join(strings.Fields(err.Error()), " "))
		return 1
	}
	return 0
}

const howToStart = `postgres-listen needs a PostgreSQL server: pass -dsn or set DATABASE_URL.
A throwaway one, on Debian (as a user other than root):

  sudo apt-get install postgresql
  /usr/lib/postgresql/*/bin/initdb -D /tmp/pg -U postgres --auth=trust
  /usr/lib/postgresql/*/bin/pg_ctl -D /tmp/pg -o "-p 5499 -k /tmp" -l /tmp/pg.log start
  go run ./examples/postgres-listen -dsn 'postgres://postgres@127.0.0.1:5499/postgres'
  psql -h 127.0.0.1 -p 5499 -U postgres -c "NOTIFY orders, 'order 42'"
`

// listen follows the channels until ctx ends (nil) or the Listener gives
// up (its error: a wrong password, a database that does not exist, or
// maxAttempts failed attempts in a row).
func listen(ctx context.Context, w io.Writer, dsn string, channels []string, maxAttempts int) error {
	l, err := postgres.NewListener(dsn, postgres.ListenerOptions{
		Channels: channels,
		Supervisor: supervisor.Settings{
			Backoff:     backoff.Config{Base: 200 * time.Millisecond, Cap: 5 * time.Second},
			MaxAttempts: maxAttempts,
			// One line per state change, the redacted DSN as name: every
			// retry says so (an identical failure at Warn three times in a
			// row, then once a minute).
			Logger: slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})),
		},
	})
	if err != nil {
		return err
	}
	go func() { _ = l.Run(ctx) }()
	fmt.Fprintf(w, "listening on %s as %s; Ctrl-C to stop\n", strings.Join(channels, ", "), l.Name())
	// The loop waits while the Listener reconnects and ends when ctx ends
	// or the Listener gives up: it cannot spin.
	for n, err := range l.Notifications(ctx) {
		if err != nil { // postgres.ErrMissed, after a reconnect
			fmt.Fprintf(w, "reconnected: %v; resync here\n", err)
			continue
		}
		fmt.Fprintf(w, "%s: %s\n", n.Channel, n.Payload)
	}
	<-l.Done()
	return l.Err()
}
