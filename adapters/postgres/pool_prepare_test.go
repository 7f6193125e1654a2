package postgres_test

import (
	"context"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/redialtest"
)

// TestPoolOfSeveralHostsCallsConfiguresPrepareConn: with several hosts
// the Pool sets PrepareConn for its own check, and still calls the one
// Configure set, whose refusal keeps a connection from being handed out.
func TestPoolOfSeveralHostsCallsConfiguresPrepareConn(t *testing.T) {
	r := redialtest.NewProxy(t, shared.Addr()) // a second address of the same server
	u := url.URL{Scheme: "postgres", User: url.UserPassword(pgtest.User, shared.Password()), Host: shared.Addr() + "," + r.Addr(), Path: "/postgres"}
	var calls, refuse atomic.Int32
	p, err := postgres.NewPool(u.String(), postgres.PoolOptions{Configure: func(cfg *pgxpool.Config) {
		cfg.MaxConns = 1
		cfg.PrepareConn = func(context.Context, *pgx.Conn) (bool, error) {
			calls.Add(1)
			return refuse.Add(-1) < 0, nil // false once after refuse.Store(1)
		}
	}})
	require.NoError(t, err)
	testkit.Run(t, p)
	testkit.WaitStatus(t, p, 10*time.Second, "connected", testkit.InState(health.Connected))
	var pid uint32
	pidOf := func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid)
	}
	require.NoError(t, p.Do(t.Context(), pidOf))
	first, before := pid, calls.Load()
	assert.Positive(t, before, "Configure's PrepareConn was not called")
	refuse.Store(1)
	require.NoError(t, p.Do(t.Context(), pidOf))
	assert.NotEqual(t, first, pid, "the connection Configure's PrepareConn refused was handed out")
	assert.Greater(t, calls.Load(), before+1)
}
