package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
)

// TestIsConnError checks IsConnError against errors a real server and
// pgx produce, and that its answer matches what became of the connection.
func TestIsConnError(t *testing.T) {
	admin := shared.Connect(t)
	ctx := t.Context()
	fresh := func(t *testing.T) *pgx.Conn { return shared.Connect(t) }
	for _, tc := range []struct {
		name   string
		cause  func(t *testing.T, c *pgx.Conn) error
		broken bool
	}{
		{"syntax error", func(t *testing.T, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SELEC 1")
			return err
		}, false},
		{"division by zero", func(t *testing.T, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SELECT 1/0")
			return err
		}, false},
		{"statement_timeout (57014)", func(t *testing.T, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SET statement_timeout = '100ms'") // fires mid-sleep, not in a loaded machine's prepare
			require.NoError(t, err)
			_, err = c.Exec(ctx, "SELECT pg_sleep(5)")
			_, reset := c.Exec(ctx, "SET statement_timeout = 0") // the check below must not race the timer
			require.NoError(t, reset)
			return err
		}, false},
		{"context done before the query", func(t *testing.T, c *pgx.Conn) error {
			done, cancel := context.WithCancel(ctx)
			cancel()
			_, err := c.Exec(done, "SELECT 1")
			return err
		}, false},
		{"context deadline during the query", func(t *testing.T, c *pgx.Conn) error {
			short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			_, err := c.Exec(short, "SELECT pg_sleep(5)")
			return err
		}, true},
		{"pg_terminate_backend", func(t *testing.T, c *pgx.Conn) error {
			_, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1)", c.PgConn().PID())
			require.NoError(t, err)
			_, err = c.Exec(ctx, "SELECT 1")
			return err
		}, true},
		{"network connection closed under it", func(t *testing.T, c *pgx.Conn) error {
			require.NoError(t, c.PgConn().Conn().Close())
			_, err := c.Exec(ctx, "SELECT 1") // the write fails: pgconn calls it safe to retry, and closes the connection
			return err
		}, true},
		{"closed connection", func(t *testing.T, c *pgx.Conn) error {
			require.NoError(t, c.Close(ctx))
			_, err := c.Exec(ctx, "SELECT 1")
			return err
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fresh(t)
			err := tc.cause(t, c)
			require.Error(t, err)
			assert.Equal(t, tc.broken, postgres.IsConnError(err), "IsConnError(%v)", err)
			assert.Equal(t, tc.broken, postgres.IsConnError(fmt.Errorf("wrapped: %w", err)), "wrapped")
			if !tc.broken {
				_, err := c.Exec(ctx, "SELECT 1")
				assert.NoError(t, err, "the connection was fine after all")
			}
			assert.Equal(t, tc.broken, c.IsClosed(), "IsConnError disagrees with IsClosed")
		})
	}
	assert.False(t, postgres.IsConnError(nil))
	assert.False(t, postgres.IsConnError(errors.New("something else")))
	assert.False(t, postgres.IsConnError(pgx.ErrNoRows))
}

func TestIsConnErrorOnConnect(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := pgx.Connect(ctx, "postgres://u:pw@127.0.0.1:1/db?sslmode=disable") // nothing listens on port 1
	require.Error(t, err)
	assert.True(t, postgres.IsConnError(err))
}
