package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
	"github.com/redial-go/redial/supervisor"
)

// A service that queries through a pool and keeps a cache in step with
// NOTIFY, and whose readiness probe tells the truth about the database.
// (It needs a server, so it is compiled but not run.)
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dsn := os.Getenv("DATABASE_URL") // postgres://app:secret@db:5432/app

	// One value serves both; the default Names differ ("postgres pool ...",
	// "postgres listener ...").
	settings := supervisor.Settings{Backoff: backoff.Config{Base: 500 * time.Millisecond, Cap: 30 * time.Second}, Logger: slog.Default()}
	pool, err := postgres.NewPool(dsn, postgres.PoolOptions{Supervisor: settings})
	if err != nil {
		log.Fatal(err) // names the bad option; never shows the password
	}
	prices, err := postgres.NewListener(dsn, postgres.ListenerOptions{Channels: []string{"prices"}, Supervisor: settings})
	if err != nil {
		log.Fatal(err)
	}

	var reg health.Registry
	reg.Add(pool.Name(), pool, health.SourceOptions{Critical: true})     // not ready while the database is down
	reg.Add(prices.Name(), prices, health.SourceOptions{Critical: true}) // nor while the cache may be stale
	http.Handle("/readyz", healthhttp.ReadyHandler(&reg))
	go http.ListenAndServe(":8080", nil)

	go pool.Run(ctx)   // pings; Backoff while the database is down
	go prices.Run(ctx) // LISTENs again after every reconnect

	cache := map[string]string{}
	reload(ctx, pool, cache)
	for n, err := range prices.Notifications(ctx) { // ends when ctx ends or prices gives up
		if errors.Is(err, postgres.ErrMissed) { // reconnected: what changed meanwhile was not notified
			log.Print(err) // says why the connection was lost
			reload(ctx, pool, cache)
			continue
		}
		cache[n.Payload] = "stale"
	}
	if err := prices.Err(); err != nil {
		log.Fatal(err) // gave up: a wrong password, say
	}
}

// reload runs its query through Do: a connection error makes the pool's
// readiness 503 at once, and the error is safe to log.
func reload(ctx context.Context, pool *postgres.Pool, cache map[string]string) {
	err := pool.Do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, "SELECT sku, price::text FROM prices")
		if err != nil {
			return err
		}
		clear(cache)
		var sku, price string
		_, err = pgx.ForEachRow(rows, []any{&sku, &price}, func() error { cache[sku] = price; return nil })
		return err
	})
	if err != nil {
		log.Print(err) // the next ErrMissed, or the next notification, tries again
	}
}

// A password that rotates (an IAM authentication token, a secret from a
// vault): BeforeConnect hands each dial the current one, a refused login
// is retried rather than final, and the program keeps its pool. (It needs
// a server, so it is compiled but not run.)
func ExamplePoolOptions_beforeConnect() {
	ctx := context.Background()
	currentToken := func(ctx context.Context) (string, error) { return os.Getenv("DB_TOKEN"), nil } // a token source
	p, err := postgres.NewPool("postgres://app@db:5432/orders?sslmode=verify-full", postgres.PoolOptions{
		BeforeConnect: func(ctx context.Context, cfg *pgconn.Config) error {
			token, err := currentToken(ctx)
			cfg.Password = token // masked like a DSN's password wherever it could show
			return err
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	go p.Run(ctx)
	err = p.Do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		_, err := conn.Exec(ctx, "SELECT 1")
		return err
	})
	if err != nil {
		log.Print(postgres.SafeError(err)) // pgx's own error, without the token in its fields
	}
}

// One connection, used through Do: a connection error makes the
// supervisor reconnect, an SQL error does not.
func ExampleNewConn() {
	ctx := context.Background()
	s, err := postgres.NewConn(os.Getenv("DATABASE_URL"), postgres.ConnOptions{
		OnConnect: func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SET search_path = app") // again on every connect
			return err
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	go s.Run(ctx)

	err = s.Do(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "UPDATE jobs SET state = 'done' WHERE id = 42")
		return err
	})
	if postgres.IsConnError(err) {
		// Reconnecting already; whether to run the UPDATE again is ours to decide.
		log.Print(err)
	}
}

// A primary and a replica: each attempt dials one host; when the one in
// use goes away, the next is tried at once (within FailoverSpread), with
// the same *pgxpool.Pool. Status.Endpoint says which host is in use. (It
// needs servers, so it is compiled but not run.)
func ExampleNewPool_severalHosts() {
	ctx := context.Background()
	p, err := postgres.NewPool("postgres://app:secret@db1:5432,db2:5432/orders?target_session_attrs=read-write",
		postgres.PoolOptions{Supervisor: supervisor.Settings{FailoverSpread: 200 * time.Millisecond}})
	if err != nil {
		log.Fatal(err)
	}
	go p.Run(ctx)
	updates, cancel := p.Subscribe()
	defer cancel()
	for st := range updates {
		log.Printf("%s on %s", st.State, st.Endpoint) // Connected on db1:5432, Backoff on db1:5432, Connected on db2:5432
	}
}

// The default Name is the kind and the target without its password.
func ExampleNewPool() {
	p, err := postgres.NewPool("postgres://app:secret@db1:5432,db2:5433/orders", postgres.PoolOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Name())
	_, err = postgres.NewPool("postgres://app:secret@db1:5432/orders", postgres.PoolOptions{PingInterval: -1})
	fmt.Println(err)
	fmt.Println(errors.Is(err, supervisor.ErrInvalidOptions))
	// Output:
	// postgres pool postgres://app@db1:5432,db2:5433/orders
	// postgres: PingInterval -1ns: negative
	// true
}

func ExampleClassify() {
	badPassword := &pgconn.PgError{Severity: "FATAL", Code: "28P01", Message: `password authentication failed for user "app"`}
	full := &pgconn.PgError{Severity: "FATAL", Code: "53300", Message: "sorry, too many clients already"}
	recovering := &pgconn.PgError{Severity: "FATAL", Code: "57P03", Message: "the database system is in recovery mode"}

	fmt.Println(backoff.IsPermanent(postgres.Classify(badPassword)))
	fmt.Println(backoff.RetryAfterHint(postgres.Classify(full)))
	fmt.Println(backoff.IsPermanent(postgres.Classify(recovering)))
	// Output:
	// true
	// 5s true
	// false
}
