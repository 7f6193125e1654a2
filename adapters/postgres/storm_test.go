package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// stormOutage is how long the relay is cut. The issue measured 10s; the
// assertion (accepts <= attempts + 2) does not depend on the length.
const stormOutage = 3 * time.Second

// maxConns is the pool's size in TestNoDialStormDuringAnOutage.
const maxConns = 4

// TestNoDialStormDuringAnOutage cuts a relay in front of the server under
// 30 goroutines that each call the kind's method every 100ms, with the
// supervisor's default backoff. The connections the relay accepts during
// the outage, each a dial toward the server, must be the supervisor's
// attempts and at most two more (a call that raced the cut, the re-ping
// of a pool that found one dead connection): the callers must not dial.
func TestNoDialStormDuringAnOutage(t *testing.T) {
	kinds := map[string]func(t *testing.T, dsn string) (runner, func(ctx context.Context) error){ // each with at most maxConns connections
		"pool": func(t *testing.T, dsn string) (runner, func(ctx context.Context) error) {
			p, err := postgres.NewPool(dsn, postgres.PoolOptions{Configure: func(cfg *pgxpool.Config) { cfg.MaxConns = maxConns }})
			require.NoError(t, err)
			return p, func(ctx context.Context) error { return p.Do(ctx, selectOne) }
		},
		"conn": func(t *testing.T, dsn string) (runner, func(ctx context.Context) error) {
			c, err := postgres.NewConn(dsn, postgres.ConnOptions{})
			require.NoError(t, err)
			return c, func(ctx context.Context) error {
				return c.Do(ctx, func(ctx context.Context, conn *pgx.Conn) error { _, err := conn.Exec(ctx, "SELECT 1"); return err })
			}
		},
		"listener": func(t *testing.T, dsn string) (runner, func(ctx context.Context) error) {
			l, err := postgres.NewListener(dsn, postgres.ListenerOptions{})
			require.NoError(t, err)
			return l, func(ctx context.Context) error { return l.Listen(ctx, "storm") }
		},
	}
	for kind, build := range kinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			r := startRelay(t, shared.Addr())
			s, call := build(t, shared.DSNVia(r.Addr, "application_name", "storm-"+kind, "sslmode", "disable"))
			testkit.Run(t, s)
			testkit.WaitStatus(t, s, 10*time.Second, "connected", testkit.InState(health.Connected))

			ctx, stop := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			var mu sync.Mutex
			calls, failed := 0, 0
			for range 30 {
				wg.Go(func() {
					tick := time.NewTicker(100 * time.Millisecond)
					defer tick.Stop()
					for ctx.Err() == nil {
						cctx, cancel := context.WithTimeout(ctx, time.Second)
						err := call(cctx)
						cancel()
						mu.Lock()
						calls++
						if err != nil {
							failed++
						}
						mu.Unlock()
						select {
						case <-tick.C:
						case <-ctx.Done():
						}
					}
				})
			}
			time.Sleep(300 * time.Millisecond) // the callers are under way
			failures := s.Status().Failures
			r.Cut()
			time.Sleep(stormOutage)
			attempts := s.Status().Failures - failures
			r.Heal()
			accepts, cancels := r.Refused.Load(), r.Cancels.Load()
			testkit.WaitStatus(t, s, 30*time.Second, "connected again", testkit.InState(health.Connected))
			stop()
			wg.Wait()
			t.Logf("%s: %v outage: %d connections accepted toward the server (%d of them cancel requests), %d failed attempts of the supervisor; %d calls, %d failed",
				kind, stormOutage, accepts, cancels, attempts, calls, failed)
			// A connection open at the cut that ended with a reset rather
			// than the server's close still gets pgx's cancel request (the
			// backend behind a reset may live on): at most one per
			// connection the kind had, however many callers, so counted
			// apart. A failed startup sends none (see below).
			// Until the first failed query marks the pool down, a caller
			// may dial once per connection slot (maxConns): 6-7 dials for
			// 1-2 attempts under load. A storm is one dial per call:
			// hundreds in this outage.
			assert.LessOrEqual(t, accepts-cancels, int64(attempts)+maxConns+2, "the callers dialed during the outage")
			assert.LessOrEqual(t, cancels, int64(maxConns), "more cancel requests than connections open at the cut")
			assert.Positive(t, attempts, "the supervisor made no attempt in the outage")
		})
	}
}

// TestNoCancelRequestThatCancelsNothing: pgx sends a cancel request
// whenever a connection breaks, even one whose startup failed (for
// process 0) or whose server closed it, which would double the dials of
// an outage. A Conn whose connection the relay cut, and whose attempts it
// then refuses, sends none: one connection per attempt.
func TestNoCancelRequestThatCancelsNothing(t *testing.T) {
	r := startRelay(t, shared.Addr())
	s, err := postgres.NewConn(shared.DSNVia(r.Addr, "application_name", "no-cancel", "sslmode", "disable"),
		postgres.ConnOptions{Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	stop := testkit.Run(t, s)
	testkit.WaitStatus(t, s, 10*time.Second, "connected", testkit.InState(health.Connected))
	r.Cut()
	err = s.Do(t.Context(), func(ctx context.Context, conn *pgx.Conn) error { _, err := conn.Exec(ctx, "SELECT 1"); return err })
	require.True(t, postgres.IsConnError(err), "the query over the cut connection: %v", err)
	testkit.WaitStatus(t, s, 10*time.Second, "5 failed attempts", func(st health.Status) bool { return st.Failures >= 5 })
	require.NoError(t, stop())
	r.Heal() // waits for the refused connections to be told apart
	failures := s.Status().Failures
	t.Logf("%d failed attempts: %d connections refused, %d of them cancel requests", failures, r.Refused.Load(), r.Cancels.Load())
	// One cancel request may be the connection cut's, when it ended with a
	// reset rather than the relay's close (see TestNoDialStormDuringAnOutage).
	assert.LessOrEqual(t, r.Cancels.Load(), int64(1), "a cancel request that cancels nothing")
	assert.LessOrEqual(t, r.Refused.Load()-r.Cancels.Load(), int64(failures)+1, "more than one connection per attempt")
}
