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
	"github.com/redial-go/redial/internal/testkit"
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
			// pgx sends a cancel request whenever a connection breaks, even
			// one whose startup failed (for process 0): one per attempt and
			// one per connection lost, however many callers. They are
			// counted apart; what must not grow with the callers is the rest.
			assert.LessOrEqual(t, accepts-cancels, int64(attempts)+2, "the callers dialed during the outage")
			assert.LessOrEqual(t, cancels, int64(attempts)+int64(maxConns)+2, "more cancel requests than connections")
			assert.Positive(t, attempts, "the supervisor made no attempt in the outage")
		})
	}
}
