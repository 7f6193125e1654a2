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
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

func TestConnReconnectsAfterInvalidate(t *testing.T) {
	admin := shared.Connect(t)
	var onConnect atomic.Int32
	s, err := postgres.NewConn(shared.DSN(), postgres.ConnOptions{
		Supervisor: supervisor.Settings{Backoff: fast},
		OnConnect: func(ctx context.Context, c *pgx.Conn) error {
			onConnect.Add(1)
			_, err := c.Exec(ctx, "SET application_name = 'redial-conn-test'")
			return err
		},
	})
	require.NoError(t, err)
	testkit.Run(t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := s.Sup().Conn(ctx)
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
	conn2, err := s.Sup().Conn(ctx)
	require.NoError(t, err)
	assert.NotSame(t, conn, conn2)
	require.NoError(t, conn2.QueryRow(ctx, "SHOW application_name").Scan(&app))
	assert.Equal(t, "redial-conn-test", app)
	assert.EqualValues(t, 2, onConnect.Load())
}

// TestDoInvalidatesOnlyOnConnectionErrors runs Do against a real server:
// a SQL error keeps the connection (still Connected, no reconnect); a
// terminated backend breaks it, and the supervisor reconnects.
func TestDoInvalidatesOnlyOnConnectionErrors(t *testing.T) {
	admin := shared.Connect(t)
	s, err := postgres.NewConn(shared.DSN(), postgres.ConnOptions{Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	testkit.Run(t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()

	var first *pgx.Conn
	err = s.Do(ctx, func(ctx context.Context, c *pgx.Conn) error {
		first = c
		_, err := c.Exec(ctx, "SELEC 1")
		return err
	})
	var pg *pgconn.PgError
	require.ErrorAs(t, err, &pg, "Do returns f's error as is")
	assert.Equal(t, "42601", pg.Code)
	// The next Do waits for a new connection if that one was invalidated.
	require.NoError(t, s.Do(ctx, func(ctx context.Context, c *pgx.Conn) error {
		assert.Same(t, first, c, "the same connection after a SQL error")
		_, err := c.Exec(ctx, "SELECT 1")
		return err
	}))
	st := s.Status()
	assert.Equal(t, health.Connected, st.State, "a syntax error cost the connection: %v", st.Err)
	assert.EqualValues(t, 1, st.Connects)

	err = s.Do(ctx, func(ctx context.Context, c *pgx.Conn) error {
		if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1)", c.PgConn().PID()); err != nil {
			return err
		}
		_, err := c.Exec(ctx, "SELECT 1")
		return err
	})
	require.Error(t, err)
	require.True(t, postgres.IsConnError(err), "%v", err)
	st = testkit.WaitStatus(t, s, 10*time.Second, "a second connection", func(st health.Status) bool {
		return st.State == health.Connected && st.Connects == 2
	})
	require.ErrorAs(t, st.Err, &pg, "Do invalidated with f's error")
	assert.Equal(t, "57P01", pg.Code)
	require.NoError(t, s.Do(ctx, func(ctx context.Context, c *pgx.Conn) error {
		assert.NotSame(t, first, c)
		_, err := c.Exec(ctx, "SELECT 1")
		return err
	}))
}
