package bench

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// BenchmarkPostgresQueries runs one query (SELECT 1, scanned) against a
// throwaway PostgreSQL on 127.0.0.1: raw on a *pgx.Conn from pgx.Connect,
// redial through Do of a postgres.NewConn supervisor (Conn, the query,
// Broken's check of a nil error). The ctx is cancellable in both. One op
// is one round trip.
func BenchmarkPostgresQueries(b *testing.B) {
	cluster := pgtest.Start(b, pgtest.Options{})
	dsn := cluster.DSN()
	query := func(ctx context.Context, c *pgx.Conn) error {
		var one int
		return c.QueryRow(ctx, "SELECT 1").Scan(&one)
	}
	b.Run("raw", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close(context.Background())
		b.ReportAllocs()
		for b.Loop() {
			if err := query(ctx, c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("redial", func(b *testing.B) {
		s, err := postgres.NewConn(dsn, postgres.ConnOptions{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := run(b, s.Run)
		testkit.WaitStatus(b, s, 30*time.Second, "connected", testkit.InState(health.Connected))
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Do(ctx, query); err != nil {
				b.Fatal(err)
			}
		}
	})
}
