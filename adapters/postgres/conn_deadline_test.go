package postgres_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// TestConnCallerDeadlinesLeaveTheHealthAlone: 20 Do calls whose 100ms
// deadline interrupts pg_sleep(1) on a critical Conn, with the readiness
// of its Registry read every millisecond meanwhile: the Conn keeps its
// connection (pgx sends a cancel request and waits for the server's
// answer), so readiness is never 503, Status never leaves Connected and
// no reconnect is counted. A connection the server ended is still
// replaced.
func TestConnCallerDeadlinesLeaveTheHealthAlone(t *testing.T) {
	admin := shared.Connect(t)
	s, err := postgres.NewConn(shared.DSN("application_name", "conn-deadlines"), postgres.ConnOptions{})
	require.NoError(t, err)
	testkit.Run(t, s)
	testkit.WaitStatus(t, s, 10*time.Second, "connected", testkit.InState(health.Connected))
	var reg health.Registry
	reg.Add("db", s, health.SourceOptions{Critical: true})
	rec := testkit.Record(s)

	polled := make(chan struct{})
	var reads, notReady int
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-polled:
				return
			case <-tick.C:
			}
			reads++
			if !reg.Ready() {
				notReady++
			}
		}
	})
	began := time.Now()
	for range 20 {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		err := s.Do(ctx, func(ctx context.Context, conn *pgx.Conn) error {
			_, err := conn.Exec(ctx, "SELECT pg_sleep(1)")
			return err
		})
		cancel()
		// nil: on a loaded machine the cancel request may reach the server
		// before the query, which then runs to its end. And a cancel request
		// is a signal the server delivers late under load: an earlier Do's
		// may cancel this query before its own deadline, which then answers
		// 57014 alone (seen beside two burners).
		var pg *pgconn.PgError
		if err != nil && !(errors.As(err, &pg) && pg.Code == "57014") {
			require.ErrorIs(t, err, context.DeadlineExceeded)
		}
	}
	took := time.Since(began) / 20
	close(polled)
	wg.Wait()
	st := s.Status()
	states := rec.Stop()
	t.Logf("20 caller deadlines (each Do returned after %v): %d of %d readiness reads not ready, states %v, %d reconnects in the last minute",
		took.Round(time.Millisecond), notReady, reads, states, st.ReconnectsLastMinute)
	assert.Zero(t, notReady, "readiness followed the callers' deadlines")
	assert.Equal(t, []health.State{health.Connected}, states, "Status left Connected")
	assert.Zero(t, st.ReconnectsLastMinute, "a caller's deadline counted as a reconnect")
	assert.EqualValues(t, 1, st.Connects)

	require.Equal(t, 1, terminate(t, admin, "conn-deadlines"))
	err = s.Do(t.Context(), func(ctx context.Context, conn *pgx.Conn) error { _, err := conn.Exec(ctx, "SELECT 1"); return err })
	require.True(t, postgres.IsConnError(err), "the query on the ended session: %v", err)
	st = testkit.WaitStatus(t, s, 10*time.Second, "replaced", func(st health.Status) bool { return st.Connects == 2 && st.State == health.Connected })
	require.NoError(t, s.Do(t.Context(), func(ctx context.Context, conn *pgx.Conn) error { _, err := conn.Exec(ctx, "SELECT 1"); return err }))
}
