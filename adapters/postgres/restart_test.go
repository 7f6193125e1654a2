package postgres_test

import (
	"fmt"
	"strings"
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

// waitQueued waits until the Listener has received n notifications the
// test has not read yet. Nothing signals that: poll, with a deadline.
func waitQueued(t *testing.T, l *postgres.Listener, n int) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for postgres.Buffered(l) < n {
		require.True(t, time.Now().Before(deadline), "%d of %d notifications arrived", postgres.Buffered(l), n)
		<-tick.C
	}
}

// TestListenerSurvivesServerRestarts restarts the server under a running
// Listener, in fast and then immediate mode. Notifications the Listener
// had received but the program had not read yet are still delivered;
// then exactly one ErrMissed error; then everything sent after it.
func TestListenerSurvivesServerRestarts(t *testing.T) {
	t.Parallel()
	c := pgtest.Start(t, pgtest.Options{})
	l := newListener(t, c.DSN(), postgres.ListenerOptions{Channels: []string{"jobs"}, Buffer: 100})
	testkit.Run(t, l)
	testkit.WaitStatus(t, l, 10*time.Second, "connected", testkit.InState(health.Connected))

	for round, mode := range []pgtest.Mode{pgtest.Fast, pgtest.Immediate} {
		sender := c.Connect(t)
		for i := range 5 {
			notify(t, sender, "jobs", fmt.Sprintf("%d-before-%d", round, i))
		}
		waitQueued(t, l, 5) // received, not yet read by the program
		c.Restart(t, mode)
		for i := range 5 {
			expect(t, l, "jobs", fmt.Sprintf("%d-before-%d", round, i))
		}
		expectMissed(t, l, 15*time.Second)
		sender = c.Connect(t)
		for i := range 5 {
			notify(t, sender, "jobs", fmt.Sprintf("%d-after-%d", round, i))
		}
		for i := range 5 {
			expect(t, l, "jobs", fmt.Sprintf("%d-after-%d", round, i))
		}
		assert.EqualValues(t, round+2, l.Status().Connects, "after the %s restart", mode)
	}
	sender := c.Connect(t)
	notify(t, sender, "jobs", "last")
	expect(t, l, "jobs", "last") // no second ErrMissed error is queued before it
}

// TestListenerSurvivesBackendCrash kills one backend with SIGKILL: the
// postmaster ends every session and runs crash recovery (answering 57P03
// meanwhile); the Listener must be back, LISTENing, once recovery ends.
func TestListenerSurvivesBackendCrash(t *testing.T) {
	t.Parallel()
	c := pgtest.Start(t, pgtest.Options{})
	var logs testkit.Buffer
	l := newListener(t, c.DSN(), postgres.ListenerOptions{Channels: []string{"crash"}, Supervisor: supervisor.Settings{
		Logger: jsonLogger(&logs), Backoff: backoff.Config{Base: 10 * time.Millisecond, Cap: 40 * time.Millisecond},
	}})
	testkit.Run(t, l)
	testkit.WaitStatus(t, l, 10*time.Second, "connected", testkit.InState(health.Connected))

	// WAL written since the last checkpoint makes crash recovery last long
	// enough for the Listener to be told 57P03 a few times.
	victim := c.Connect(t)
	_, err := victim.Exec(t.Context(), "CREATE TABLE wal AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 500000) g")
	require.NoError(t, err)
	c.KillBackend(t, victim.PgConn().PID())
	expectMissed(t, l, 30*time.Second)

	sender := c.Connect(t)
	notify(t, sender, "crash", "after recovery")
	expect(t, l, "crash", "after recovery")
	st := l.Status()
	assert.EqualValues(t, 2, st.Connects)
	assert.Contains(t, c.Log(), "terminated by signal 9")
	assert.Contains(t, logs.String(), "(SQLSTATE 57P03)", "the Listener was never refused during recovery")
	t.Logf("attempts refused with 57P03: %d", strings.Count(logs.String(), "57P03"))
}
