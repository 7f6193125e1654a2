package postgres_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// silentPathBound is how soon, with the defaults, every kind must find a
// path that went silent: the package's promise.
const silentPathBound = 15 * time.Second

// TestFailoverFromASilentHost gives a Listener and a Pool a DSN with two
// hosts: the first reaches the server through a proxy, the second
// directly. With every setting at its default but the backoff, the path
// through the proxy stalls (nothing forwarded, nothing closed: a dead
// NAT entry, a host that vanished). Each must find it within 15s, as on
// one host, and be Connected on the second host within FailoverSpread
// (Base/2) and one connect after that: the Pool from the pings it starts
// once a query's caller gave up on it (within a query's timeout and two
// ping timeouts, three when a ping was under way: the caller's deadline
// is no loss by itself), the Listener from its pings (PingInterval 5s +
// PingTimeout 3s), whose dead connection is closed
// before the next attempt (pgconn's cleanup of it cut at 1s). The Pool's
// queries, on the same *pgxpool.Pool, work again on the second host.
func TestFailoverFromASilentHost(t *testing.T) {
	t.Parallel()
	proxy := toxitest.New(t, shared.Addr())
	_, proxyPort, err := net.SplitHostPort(proxy.Addr())
	require.NoError(t, err)
	dsn := func(app string) string {
		return fmt.Sprintf("host=127.0.0.1,127.0.0.1 port=%s,%d user=%s password=%s dbname=postgres application_name=%s",
			proxyPort, shared.Port(), pgtest.User, shared.Password(), app)
	}
	settings := supervisor.Settings{Backoff: healBackoff}
	spread := healBackoff.Base / 2 // the default FailoverSpread
	oneConnect := measureConnect(t, fmt.Sprintf("host=127.0.0.1 port=%d user=%s password=%s dbname=postgres",
		shared.Port(), pgtest.User, shared.Password()))
	const cleanupGrace = time.Second // see adapters/postgres.cleanupGrace

	l := newListener(t, dsn("failover-listener"), postgres.ListenerOptions{Channels: []string{"failover"}, Supervisor: settings})
	p, err := postgres.NewPool(dsn("failover-pool"), postgres.PoolOptions{Supervisor: settings})
	require.NoError(t, err)
	lt, pt := record(t, l), record(t, p)
	testkit.Run(t, l)
	testkit.Run(t, p)
	for _, r := range []runner{l, p} {
		st := testkit.WaitStatus(t, r, 10*time.Second, "connected", testkit.InState(health.Connected))
		require.Equal(t, proxy.Addr(), st.Endpoint, "the first attempt goes to the first host")
	}

	// The load: one query at a time through the Pool's Do.
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var stalled, worked time.Time   // the first query that worked after the stall
	workedCh := make(chan struct{}) // closed when worked is set
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			began := time.Now()
			qctx, qcancel := context.WithTimeout(ctx, queryTimeout)
			err := p.Do(qctx, func(ctx context.Context, conn *pgxpool.Conn) error {
				_, err := conn.Exec(ctx, "SELECT 1")
				return err
			})
			qcancel()
			mu.Lock()
			if err == nil && !stalled.IsZero() && began.After(stalled) && worked.IsZero() {
				worked = time.Now()
				close(workedCh)
			}
			mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })

	mu.Lock()
	proxy.Stall(t, "up", "upstream")
	proxy.Stall(t, "down", "downstream")
	stalled = time.Now()
	mu.Unlock()
	for name, tl := range map[string]*timeline{"pool": pt, "listener": lt} {
		st := tl.wait(t, silentPathBound+5*time.Second, stalled, func(st health.Status) bool { return st.State != health.Connected })
		found := st.Since.Sub(stalled)
		assert.LessOrEqual(t, found, silentPathBound, "%s found the silent host after %v", name, found)
		on := tl.wait(t, 10*time.Second, stalled, func(st health.Status) bool {
			return st.State == health.Connected && st.Endpoint == shared.Addr()
		})
		took := on.Since.Sub(st.Since)
		t.Logf("%s: found the silent host %v after the stall, Connected on the second %v later", name,
			found.Round(time.Millisecond), took.Round(time.Millisecond))
		bound := spread + oneConnect
		if name == "listener" {
			bound += cleanupGrace // its lost connection is closed first, and pgconn's cleanup of it is cut at 1s
		}
		assert.LessOrEqual(t, took, bound, "%s: failover after the loss", name)
		if name == "pool" {
			// A ping under way when the caller gave up may take its timeout first.
			bound := queryTimeout + cleanupGrace + 3*postgres.DefaultPingTimeout + time.Second
			assert.LessOrEqual(t, found, bound, "the pool's readiness did not follow its queries' callers giving up")
		}
	}
	n, err := next(t, l, 10*time.Second)
	assert.ErrorIs(t, err, postgres.ErrMissed)
	assert.Zero(t, n)
	testkit.WaitStatus(t, p, 10*time.Second, "pool connected", testkit.InState(health.Connected))
	select { // Do fails fast until the Pool is Connected: wait for the worker's next query
	case <-workedCh:
	case <-time.After(10 * time.Second):
	}
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	require.False(t, worked.IsZero(), "no query worked after the stall")
	t.Logf("pool: the first query that worked after the stall did %v after it", worked.Sub(stalled).Round(time.Millisecond))
}

// measureConnect returns how long one connection (TCP, sslmode=prefer's
// TLS refusal, the SCRAM login) may take on this machine now: twice the
// slowest of three to dsn, and at least a second. A login under -race on
// two busy cores took 1.8s where a quiet machine takes 50ms.
func measureConnect(t *testing.T, dsn string) time.Duration {
	t.Helper()
	var slowest time.Duration
	for range 3 {
		began := time.Now()
		c, err := pgx.Connect(t.Context(), dsn)
		require.NoError(t, err)
		slowest = max(slowest, time.Since(began))
		require.NoError(t, c.Close(t.Context()))
	}
	return max(time.Second, 2*slowest)
}
