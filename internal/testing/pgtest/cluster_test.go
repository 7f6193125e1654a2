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

	"github.com/redial-go/redial/internal/testing/pgtest"
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

// Options.TLS serves TLS with the cluster's own certificate: a client that
// verifies it against CertPool gets a TLS session, one with sslmode=disable
// a plain one; a cluster without it refuses TLS. DSNs set no sslmode.
func TestTLS(t *testing.T) {
	c := pgtest.Start(t, pgtest.Options{TLS: true})
	require.NotNil(t, c.CertPool())
	assert.NotContains(t, c.DSN(), "sslmode", "the DSN leaves sslmode to pgx's default")
	ssl := func(dsn string, configure func(*pgx.ConnConfig)) (bool, error) {
		cfg, err := pgx.ParseConfig(dsn)
		require.NoError(t, err)
		if configure != nil {
			configure(cfg)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return false, err
		}
		defer conn.Close(context.Background())
		var on bool
		err = conn.QueryRow(ctx, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&on)
		return on, err
	}
	on, err := ssl(c.DSN("sslmode", "verify-full"), func(cfg *pgx.ConnConfig) { cfg.TLSConfig.RootCAs = c.CertPool() })
	require.NoError(t, err)
	assert.True(t, on, "verify-full against the cluster's certificate")
	on, err = ssl(c.DSN(), nil)
	require.NoError(t, err)
	assert.True(t, on, "pgx's default sslmode (prefer) uses TLS when the server has it")
	on, err = ssl(c.DSN("sslmode", "disable"), nil)
	require.NoError(t, err)
	assert.False(t, on)

	plain := pgtest.Start(t, pgtest.Options{})
	assert.Nil(t, plain.CertPool())
	_, err = ssl(plain.DSN("sslmode", "require"), nil)
	assert.ErrorContains(t, err, "server refused TLS connection")
	on, err = ssl(plain.DSN(), nil)
	require.NoError(t, err)
	assert.False(t, on, "prefer falls back to plain")
}
