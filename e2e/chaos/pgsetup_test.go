package chaos

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/internal/testing/pgtest"
)

// appPrefix starts the application_name of every PostgreSQL subject, so
// that pg_stat_activity tells their connections from the test's own.
const appPrefix = "chaos-"

// startCluster starts the run's one PostgreSQL cluster, on a low port
// (see port_test.go) since it is restarted during the run.
func startCluster(t *testing.T) *pgtest.Cluster {
	return pgtest.Start(t, pgtest.Options{Port: lowPort(t), Settings: map[string]string{"max_connections": "200"}})
}

// helperPool is the test's own pool, straight to the cluster (no proxy,
// no supervisor): NOTIFY senders, round-trip probes, pg_stat_activity.
// Its errors during a PostgreSQL restart are the test's, not a subject's.
func helperPool(t *testing.T, c *pgtest.Cluster) *pgxpool.Pool {
	cfg, err := pgxpool.ParseConfig(c.DSN("application_name", "redial-chaos-helper"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 12
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}
