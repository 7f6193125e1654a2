package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// TestTooManyConnectionsWaitsForTheHint fills max_connections: attempts
// get SQLSTATE 53300 and wait the longer hint; when a slot frees, the
// supervisor connects.
func TestTooManyConnectionsWaitsForTheHint(t *testing.T) {
	t.Parallel()
	const hint = 700 * time.Millisecond
	bo := backoff.Config{Base: 20 * time.Millisecond, Cap: 100 * time.Millisecond}
	c := pgtest.Start(t, pgtest.Options{Settings: map[string]string{"max_connections": "3", "superuser_reserved_connections": "0"}})
	held := c.Connect(t)
	c.Connect(t)
	c.Connect(t)

	s, err := postgres.NewConn(c.DSN(), postgres.ConnOptions{TooManyConnectionsHint: hint, Supervisor: supervisor.Settings{Backoff: bo}})
	require.NoError(t, err)
	testkit.Run(t, s)
	var st health.Status
	for i := 1; i <= 2; i++ { // the first refusal and a second one: every refusal waits the hint
		st = testkit.WaitStatus(t, s, 10*time.Second, "a refusal", func(st health.Status) bool {
			return st.State == health.Backoff && st.ConsecutiveFailures >= i
		})
		assert.Contains(t, st.Err.Error(), "53300")
		planned := st.NextAttempt.Sub(st.Since)
		t.Logf("attempt %d: planned wait %v (hint %v, Cap %v)", st.ConsecutiveFailures, planned.Round(time.Millisecond), hint, bo.Cap)
		assert.GreaterOrEqual(t, planned, hint-20*time.Millisecond, "the 53300 hint was not honored")
		testkit.WaitStatus(t, s, 10*time.Second, "the next attempt", testkit.InState(health.Connecting))
	}

	require.NoError(t, held.Close(t.Context())) // a slot frees
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := s.Sup().Conn(ctx)
	require.NoError(t, err)
	require.NoError(t, conn.Ping(ctx))
	assert.Equal(t, health.Connected, s.Status().State)
	assert.GreaterOrEqual(t, st.ConsecutiveFailures, 2)
}
