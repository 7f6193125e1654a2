package postgres_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

func TestConnReconnectsAfterInvalidate(t *testing.T) {
	admin := shared.Connect(t)
	var onConnect atomic.Int32
	s, err := postgres.NewConn(postgres.ConnOptions{
		Options: postgres.Options{DSN: shared.DSN(), Backoff: fast},
		OnConnect: func(ctx context.Context, c *pgx.Conn) error {
			onConnect.Add(1)
			_, err := c.Exec(ctx, "SET application_name = 'redial-conn-test'")
			return err
		},
	})
	require.NoError(t, err)
	start(t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := s.Conn(ctx)
	require.NoError(t, err)
	var app string
	require.NoError(t, conn.QueryRow(ctx, "SHOW application_name").Scan(&app))
	assert.Equal(t, "redial-conn-test", app, "OnConnect ran before the conn was handed out")

	_, err = admin.Exec(ctx, "SELECT pg_terminate_backend($1)", conn.PgConn().PID())
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "SELECT 1")
	require.Error(t, err)
	require.True(t, postgres.IsConnError(err), "a terminated backend is a connection error: %v", err)
	s.Invalidate(conn, err)

	st := testkit.WaitStatus(t, s, 10*time.Second, "a second connection", func(st health.Status) bool {
		return st.State == health.Connected && st.Connects == 2
	})
	var pg *pgconn.PgError
	require.ErrorAs(t, st.Err, &pg, "the Invalidate reason is kept")
	assert.Equal(t, "57P01", pg.Code)
	conn2, err := s.Conn(ctx)
	require.NoError(t, err)
	assert.NotSame(t, conn, conn2)
	require.NoError(t, conn2.QueryRow(ctx, "SHOW application_name").Scan(&app))
	assert.Equal(t, "redial-conn-test", app)
	assert.EqualValues(t, 2, onConnect.Load())
}
