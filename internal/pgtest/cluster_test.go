package pgtest_test

import (
	"context"
	"os"
	"testing"

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
