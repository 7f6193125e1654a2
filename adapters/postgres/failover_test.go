package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// spread is the FailoverSpread of these tests: the most a failover to the
// next host waits.
const spread = 100 * time.Millisecond

// oneConnect bounds one connect (dial, SCRAM login, a LISTEN or a ping)
// on 127.0.0.1 under the race detector, generously.
const oneConnect = time.Second

// uniqueRole creates a role named prefix and a random suffix, with one
// random password, on every cluster (a primary and its replicas share
// their roles). On the clusters the package's tests share it is dropped,
// its sessions ended, when t ends: with its unique name, a test can run
// again on the same clusters (go test -count=N) either way.
func uniqueRole(t *testing.T, prefix string, clusters ...*pgtest.Cluster) (role, password string) {
	t.Helper()
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	password = hex.EncodeToString(b)
	role = prefix + "_" + password[:8]
	for _, c := range clusters {
		admin := c.Connect(t)
		_, err := admin.Exec(t.Context(), "SET default_transaction_read_only = off") // a read-only cluster too
		require.NoError(t, err)
		_, err = admin.Exec(t.Context(), fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", role, password))
		require.NoError(t, err)
		if c == shared || c == rejecting {
			t.Cleanup(func() { dropRole(t, c, role) })
		}
	}
	return role, password
}

// dropRole ends role's sessions on c and drops it, on a connection of
// its own (the test's may have been cut by a restart).
func dropRole(t *testing.T, c *pgtest.Cluster, role string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, c.DSN("application_name", "pgtest"))
	require.NoError(t, err)
	defer admin.Close(ctx)
	_, err = admin.Exec(ctx, "SET default_transaction_read_only = off")
	require.NoError(t, err)
	_, err = admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", role)
	require.NoError(t, err)
	_, err = admin.Exec(ctx, "DROP ROLE IF EXISTS "+role)
	require.NoError(t, err)
}

// port is c's port as text.
func port(c *pgtest.Cluster) string { return strconv.Itoa(c.Port()) }

// lossOf returns the transition of h in which the connection was lost
// (Connected to Backoff); it fails t when there is none.
func lossOf(t *testing.T, h []health.Transition) health.Transition {
	t.Helper()
	for _, tr := range h {
		if tr.From == health.Connected && tr.To == health.Backoff {
			return tr
		}
	}
	t.Fatalf("no loss in the history: %+v", h)
	panic("unreachable")
}

// connectedAt returns when h last went Connected on endpoint.
func connectedAt(t *testing.T, h []health.Transition, endpoint string) time.Time {
	t.Helper()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].To == health.Connected && h[i].Endpoint == endpoint {
			return h[i].At
		}
	}
	t.Fatalf("never connected on %s: %+v", endpoint, h)
	panic("unreachable")
}

// TestListenerAndPoolFailOverWhenTheFirstHostStops runs a Listener (on a
// key=value DSN) and a Pool (on a URL DSN) with two hosts, two clusters
// with the same role; both connect to the first, which then stops.
//
// The Pool: a query through Do finds the first gone, and queries through
// the same *pgxpool.Pool work again on the second within FailoverSpread
// and one connect. Once the first is back, the pool's new connections
// still go to the second: the endpoint in use, not the first of the list.
//
// The Listener LISTENs again on the second at once (within FailoverSpread
// and one connect of the loss, Status.Endpoint naming it), yields one
// ErrMissed, and receives a NOTIFY sent there.
//
// Both plan their next attempt within FailoverSpread of the loss.
func TestListenerAndPoolFailOverWhenTheFirstHostStops(t *testing.T) {
	t.Parallel()
	const channel = "failover"
	first := pgtest.Start(t, pgtest.Options{})
	role, pw := uniqueRole(t, "failover", first, shared)

	kv := fmt.Sprintf("host=127.0.0.1,127.0.0.1 port=%d,%d user=%s password=%s dbname=postgres",
		first.Port(), shared.Port(), role, pw)
	l := newListener(t, kv, postgres.ListenerOptions{Channels: []string{channel},
		Supervisor: supervisor.Settings{Backoff: fast, FailoverSpread: spread}})
	testkit.Run(t, l)
	st := testkit.WaitStatus(t, l, 10*time.Second, "connected", testkit.InState(health.Connected))
	require.Equal(t, first.Addr(), st.Endpoint, "the first attempt goes to the first host")
	notify(t, first.Connect(t), channel, "one")
	expect(t, l, channel, "one")

	u := url.URL{Scheme: "postgres", User: url.UserPassword(role, pw), Host: first.Addr() + "," + shared.Addr(),
		Path: "/postgres", RawQuery: "pool_max_conns=2"}
	p, err := postgres.NewPool(u.String(), postgres.PoolOptions{Supervisor: supervisor.Settings{Backoff: fast, FailoverSpread: spread}})
	require.NoError(t, err)
	testkit.Run(t, p)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	pool, err := p.Sup().Conn(ctx)
	require.NoError(t, err)
	assert.Equal(t, first.Addr(), p.Status().Endpoint)
	serverPort := func() (int, error) {
		var port int
		err := p.Do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
			return conn.QueryRow(ctx, "SELECT inet_server_port()").Scan(&port)
		})
		return port, err
	}
	got, err := serverPort()
	require.NoError(t, err)
	require.Equal(t, first.Port(), got)

	first.Stop(t, pgtest.Fast)
	stopped := time.Now()

	// The Pool.
	_, err = serverPort()
	require.Error(t, err, "a query on a stopped server")
	assert.True(t, postgres.IsConnError(err), "%v", err)
	st = testkit.WaitStatus(t, p, 10*time.Second, "pool connected to the second host", func(st health.Status) bool {
		return st.State == health.Connected && st.Endpoint == shared.Addr()
	})
	got, err = serverPort()
	took := time.Since(stopped)
	require.NoError(t, err)
	assert.Equal(t, shared.Port(), got, "queries run on the second host")
	var one int
	require.NoError(t, pool.QueryRow(ctx, "SELECT 1").Scan(&one), "the same *pgxpool.Pool works")
	again, err := p.Sup().Conn(ctx)
	require.NoError(t, err)
	assert.Same(t, pool, again)
	loss := lossOf(t, p.History())
	assert.Equal(t, first.Addr(), loss.Endpoint)
	assert.Equal(t, "failover", loss.Reason)
	assert.Less(t, loss.Delay, spread, "the next attempt is planned within FailoverSpread of the loss")
	t.Logf("pool: first host stopped, queries on the second %v later (wait %v, %d connects)", took, loss.Delay, st.Connects)
	assert.Less(t, took, spread+oneConnect, "queries work again within FailoverSpread and one connect")

	// The Listener.
	st = testkit.WaitStatus(t, l, 10*time.Second, "listener connected to the second host", func(st health.Status) bool {
		return st.State == health.Connected && st.Endpoint == shared.Addr()
	})
	assert.EqualValues(t, 2, st.Connects)
	h := l.History()
	loss = lossOf(t, h)
	assert.Equal(t, first.Addr(), loss.Endpoint, "the loss is the first host's")
	assert.Equal(t, "failover", loss.Reason)
	assert.Less(t, loss.Delay, spread, "the next attempt is planned within FailoverSpread of the loss")
	took = connectedAt(t, h, shared.Addr()).Sub(loss.At)
	t.Logf("listener: lost the first host, LISTENing on the second %v later (wait %v)", took, loss.Delay)
	assert.Less(t, took, spread+oneConnect, "failover within FailoverSpread and one connect")
	expectMissed(t, l, 10*time.Second)
	notify(t, shared.Connect(t), channel, "two")
	expect(t, l, channel, "two")

	// The first host is back: the Pool stays where it is.
	first.Start(t)
	pool.Reset() // every connection from now on is a new dial
	for range 3 {
		got, err = serverPort()
		require.NoError(t, err)
		assert.Equal(t, shared.Port(), got, "a dial went back to the first host of the list")
	}
}

// TestReadWriteSkipsAReadOnlyHost: with target_session_attrs=read-write,
// an attempt on a host whose sessions are read-only fails (pgx checks
// every host it dials) and the next host is tried at once. On the first
// host the role's sessions are made read-only (ALTER ROLE ... SET
// default_transaction_read_only), which is what pgx's read-write check
// reads (SHOW transaction_read_only), as a hot standby's would say: a
// real standby (pg_basebackup, replication) would cost seconds and a
// pgtest helper for the same answer. target_session_attrs=primary, which
// asks pg_is_in_recovery(), is not covered.
func TestReadWriteSkipsAReadOnlyHost(t *testing.T) {
	t.Parallel()
	first := rejecting // its database postgres takes logins
	role, pw := uniqueRole(t, "failover_rw", first, shared)
	_, err := first.Connect(t).Exec(t.Context(), "ALTER ROLE "+role+" SET default_transaction_read_only = on")
	require.NoError(t, err)
	dsn := fmt.Sprintf("postgres://%s:%s@%s,%s/postgres?target_session_attrs=read-write", role, pw, first.Addr(), shared.Addr())
	for kind, build := range kinds {
		t.Run(kind, func(t *testing.T) {
			r := build(t, dsn, supervisor.Settings{Backoff: fast, FailoverSpread: spread})
			testkit.Run(t, r)
			st := testkit.WaitStatus(t, r, 10*time.Second, "connected", testkit.InState(health.Connected))
			assert.Equal(t, shared.Addr(), st.Endpoint, "connected to the read-write host")
			tried := attempts(r.History())
			require.Len(t, tried, 1, "one failed attempt, on the read-only host")
			assert.Equal(t, first.Addr(), tried[0].Endpoint)
			assert.Equal(t, "failover", tried[0].Reason)
			assert.ErrorContains(t, tried[0].Err, "read only")
		})
	}
}

// TestTooManyConnectionsRestsOnlyThatHost: the first host refuses the
// role with 53300 (its connection limit there is 0; the hint is
// TooManyConnectionsHint, 5s by default): the next host is tried at once,
// not after the hint. When that connection is lost, the refusing host
// still rests, so the next attempt goes to the second host again, after
// one backoff delay.
func TestTooManyConnectionsRestsOnlyThatHost(t *testing.T) {
	t.Parallel()
	first := rejecting
	role, pw := uniqueRole(t, "failover_full", first, shared)
	_, err := first.Connect(t).Exec(t.Context(), "ALTER ROLE "+role+" CONNECTION LIMIT 0")
	require.NoError(t, err)
	dsn := fmt.Sprintf("postgres://%s:%s@%s,%s/postgres", role, pw, first.Addr(), shared.Addr())
	s, err := postgres.NewConn(dsn, postgres.ConnOptions{Supervisor: supervisor.Settings{Backoff: fast, FailoverSpread: spread}})
	require.NoError(t, err)
	testkit.Run(t, s)
	st := testkit.WaitStatus(t, s, 10*time.Second, "connected", testkit.InState(health.Connected))
	assert.Equal(t, shared.Addr(), st.Endpoint)
	tried := attempts(s.History())
	require.Len(t, tried, 1)
	assert.Equal(t, first.Addr(), tried[0].Endpoint)
	assert.ErrorContains(t, tried[0].Err, "53300")
	assert.Equal(t, "failover", tried[0].Reason, "the refusing host's hint rests it alone")
	assert.Less(t, tried[0].Delay, spread)

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	err = s.Do(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "SELECT pg_terminate_backend(pg_backend_pid())")
		return err
	})
	require.True(t, postgres.IsConnError(err), "%v", err)
	st = testkit.WaitStatus(t, s, 10*time.Second, "connected again", func(st health.Status) bool {
		return st.State == health.Connected && st.Connects == 2
	})
	assert.Equal(t, shared.Addr(), st.Endpoint, "the refusing host still rests")
	loss := lossOf(t, s.History())
	assert.Equal(t, "backoff", loss.Reason)
	assert.LessOrEqual(t, loss.Delay, fast.Cap, "one backoff delay, not the refusing host's hint")
}

// TestPoolDropsADialThatStraddledAFailover: a dial that began before the
// Pool failed over (its BeforeConnect ran while the first host was the
// current one) ends with a connection to the first host, which still
// answers. The pool does not use it: the query that waited for it (with
// WaitForReady) waits for the Pool Connected again and runs on the second
// host.
func TestPoolDropsADialThatStraddledAFailover(t *testing.T) {
	t.Parallel()
	first := rejecting
	role, pw := uniqueRole(t, "failover_straddle", first, shared)
	u := url.URL{Scheme: "postgres", User: url.UserPassword(role, pw), Host: first.Addr() + "," + shared.Addr(),
		Path: "/postgres", RawQuery: "pool_max_conns=3"}
	gate := make(chan struct{}) // closed to let the held dial go on
	entered := make(chan struct{})
	var hold atomic.Bool
	hook := func(ctx context.Context, cfg *pgconn.Config) error {
		if hold.CompareAndSwap(true, false) {
			close(entered)
			<-gate
		}
		return nil
	}
	p, err := postgres.NewPool(u.String(), postgres.PoolOptions{BeforeConnect: hook, PingInterval: time.Minute, WaitForReady: true,
		Supervisor: supervisor.Settings{Backoff: fast, FailoverSpread: spread}})
	require.NoError(t, err)
	testkit.Run(t, p)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	pool, err := p.Sup().Conn(ctx)
	require.NoError(t, err)
	require.Equal(t, first.Addr(), p.Status().Endpoint)
	pool.Reset() // no idle connection: the next query dials

	hold.Store(true)
	held := make(chan int, 1)
	go func() {
		var port int
		err := p.Do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
			return conn.QueryRow(ctx, "SELECT inet_server_port()").Scan(&port)
		})
		assert.NoError(t, err)
		held <- port
	}()
	<-entered // that dial is steered to the first host, and waits
	err = p.Do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		_ = conn.Conn().Close(ctx)
		return io.ErrUnexpectedEOF // as if the first host broke it
	})
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	testkit.WaitStatus(t, p, 10*time.Second, "connected to the second host", func(st health.Status) bool {
		return st.State == health.Connected && st.Endpoint == shared.Addr()
	})
	close(gate)
	select {
	case port := <-held:
		assert.Equal(t, shared.Port(), port, "a connection to the host left was handed out")
	case <-ctx.Done():
		t.Fatal("the held query never ran")
	}
}
