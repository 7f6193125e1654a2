package pgtest_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testing/pgtest"
)

// TestPairFailsOver: the standby replays the primary's writes, takes
// writes once promoted, and the old primary rewound to follow it replays
// the new primary's.
func TestPairFailsOver(t *testing.T) {
	a, b := pgtest.StartPair(t, pgtest.Options{})
	assert.False(t, a.InRecovery(t))
	assert.True(t, b.InRecovery(t))
	_, err := a.Connect(t).Exec(t.Context(), "CREATE TABLE t (v int); INSERT INTO t VALUES (1)")
	require.NoError(t, err)
	eventually(t, b, 1)

	b.Promote(t)
	assert.False(t, b.InRecovery(t))
	_, err = b.Connect(t).Exec(t.Context(), "INSERT INTO t VALUES (2)")
	require.NoError(t, err)

	a.Follow(t, b)
	assert.True(t, a.InRecovery(t))
	eventually(t, a, 2)
	_, err = a.Connect(t).Exec(t.Context(), "INSERT INTO t VALUES (3)")
	assertCode(t, err, "25006")
}

// TestFenceKeepsSessions: a fenced primary keeps its sessions, which fail
// every write with 25006 and report default_transaction_read_only; Unfence
// lets them write again.
func TestFenceKeepsSessions(t *testing.T) {
	c := pgtest.Start(t, pgtest.Options{})
	conn := c.Connect(t)
	_, err := conn.Exec(t.Context(), "CREATE TABLE t (v int)")
	require.NoError(t, err)
	assert.Equal(t, "off", conn.PgConn().ParameterStatus("default_transaction_read_only"))
	c.Fence(t)
	_, err = conn.Exec(t.Context(), "INSERT INTO t VALUES (1)")
	assertCode(t, err, "25006")
	assert.Equal(t, "on", conn.PgConn().ParameterStatus("default_transaction_read_only"), "reported with the failed write's answer")
	c.Unfence(t)
	_, err = conn.Exec(t.Context(), "INSERT INTO t VALUES (1)")
	require.NoError(t, err)
}

func assertCode(t *testing.T, err error, code string) {
	t.Helper()
	var pg *pgconn.PgError
	if assert.ErrorAs(t, err, &pg) {
		assert.Equal(t, code, pg.Code, pg.Message)
	}
}

// eventually waits until c's table t holds n rows.
func eventually(t *testing.T, c *pgtest.Cluster, n int) {
	t.Helper()
	conn := c.Connect(t)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var got int
		err := conn.QueryRow(t.Context(), "SELECT count(*) FROM t").Scan(&got)
		if err == nil && got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d rows, want %d (%v)", got, n, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
