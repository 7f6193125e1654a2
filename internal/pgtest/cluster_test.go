package pgtest_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestClusterLifecycle(t *testing.T) {
	c := pgtest.Start(t, pgtest.Options{Settings: map[string]string{"max_connections": "7"}})
	conn := c.Connect(t)
	var maxConns string
	require.NoError(t, conn.QueryRow(t.Context(), "SHOW max_connections").Scan(&maxConns))
	assert.Equal(t, "7", maxConns, "Settings reach the server")

	c.Restart(t, pgtest.Fast)
	_, err := conn.Exec(t.Context(), "SELECT 1")
	assert.Error(t, err, "a fast restart disconnects clients")
	conn = c.Connect(t)
	require.NoError(t, conn.QueryRow(t.Context(), "SHOW max_connections").Scan(&maxConns))
	assert.Equal(t, "7", maxConns, "Settings survive a restart")

	c.Stop(t, pgtest.Immediate)
	_, err = conn.Exec(context.Background(), "SELECT 1")
	assert.Error(t, err)
	c.Start(t)
	c.Connect(t)
}

func TestCloseRemovesEverything(t *testing.T) {
	c, err := pgtest.New(pgtest.Options{})
	require.NoError(t, err)
	dir := c.DataDirForTest()
	require.DirExists(t, dir)
	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "Close twice")
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "directory left behind: %v", err)
}

// Options.Port is the port the server listens on, across restarts too.
func TestChosenPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	c := pgtest.Start(t, pgtest.Options{Port: port})
	assert.Equal(t, port, c.Port())
	c.Restart(t, pgtest.Fast)
	var one int
	require.NoError(t, c.Connect(t).QueryRow(t.Context(), "SELECT 1").Scan(&one))
	assert.Contains(t, c.DSN(), fmt.Sprintf(":%d/", port))
}

// Options.HBA lines come first, across restarts: the login they reject is
// refused with 28000, the others are not.
func TestHBALinesComeFirst(t *testing.T) {
	c := pgtest.Start(t, pgtest.Options{HBA: []string{"host rejected all 127.0.0.1/32 reject"}})
	for range 2 {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		_, err := pgx.Connect(ctx, c.URL(pgtest.User, c.Password(), "rejected"))
		cancel()
		var pg *pgconn.PgError
		require.ErrorAs(t, err, &pg)
		assert.Equal(t, "28000", pg.Code)
		c.Connect(t)
		c.Restart(t, pgtest.Fast)
	}
}
