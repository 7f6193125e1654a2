package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
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

// insert writes a row to t on the connection q.
func insert(ctx context.Context, q interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}) error {
	_, err := q.Exec(ctx, "INSERT INTO t VALUES (1)")
	return err
}

func sqlState(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code
	}
	return ""
}

// leftForRole waits until r lost a connection for ErrWrongRole and
// returns that transition.
func leftForRole(t *testing.T, r runner, d time.Duration) health.Transition {
	t.Helper()
	var found health.Transition
	require.Eventually(t, func() bool {
		for _, tr := range r.History() {
			if tr.From == health.Connected && errors.Is(tr.Err, postgres.ErrWrongRole) {
				found = tr
				return true
			}
		}
		return false
	}, d, 5*time.Millisecond, "%s: no connection lost for ErrWrongRole; %v", r.Name(), r.Status())
	return found
}

// A program's own READ ONLY transaction answers 25006 too, but changes
// nothing the server reports: the connection is kept.
func TestAReadOnlyTransactionIsNoFence(t *testing.T) {
	t.Parallel()
	admin := shared.Connect(t)
	_, err := admin.Exec(t.Context(), "CREATE TABLE IF NOT EXISTS t (v int)")
	require.NoError(t, err)
	dsn := shared.DSN("application_name", "ro-tx", "target_session_attrs", "read-write")
	c, err := postgres.NewConn(dsn, postgres.ConnOptions{Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	p, err := postgres.NewPool(dsn, postgres.PoolOptions{Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	for _, r := range []runner{c, p} {
		testkit.Run(t, r)
		testkit.WaitStatus(t, r, 10*time.Second, "connected", testkit.InState(health.Connected))
	}
	readOnly := func(tx pgx.Tx) error { return insert(t.Context(), tx) }
	for range 3 {
		err := c.Do(t.Context(), func(ctx context.Context, conn *pgx.Conn) error {
			return pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{AccessMode: pgx.ReadOnly}, readOnly)
		})
		assert.Equal(t, "25006", sqlState(err))
		err = p.Do(t.Context(), func(ctx context.Context, conn *pgxpool.Conn) error {
			return pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{AccessMode: pgx.ReadOnly}, readOnly)
		})
		assert.Equal(t, "25006", sqlState(err))
	}
	require.NoError(t, c.Do(t.Context(), func(ctx context.Context, conn *pgx.Conn) error { return insert(ctx, conn) }))
	require.NoError(t, p.Do(t.Context(), func(ctx context.Context, conn *pgxpool.Conn) error { return insert(ctx, conn) }))
	time.Sleep(100 * time.Millisecond) // the Pool checks a released connection on a goroutine of pgxpool's
	for _, r := range []runner{c, p} {
		st := r.Status()
		assert.Equal(t, health.Connected, st.State, st.Name)
		assert.Equal(t, uint64(1), st.Connects, "%s: replaced", st.Name)
	}
}

// A fenced primary (one host) is left at the first write for the Conn
// and the Pool, and at the next ping for the Listener, even while
// notifications sent on the fenced server keep arriving (NOTIFY still
// works there); each says ErrWrongRole and is back once it is unfenced.
func TestAFencedPrimaryIsLeft(t *testing.T) {
	t.Parallel()
	srv := pgtest.Start(t, pgtest.Options{})
	admin := srv.Connect(t)
	_, err := admin.Exec(t.Context(), "CREATE TABLE t (v int)")
	require.NoError(t, err)
	dsn := func(app string) string { return srv.DSN("application_name", app, "target_session_attrs", "read-write") }
	settings := supervisor.Settings{Backoff: fast}
	c, err := postgres.NewConn(dsn("fence-conn"), postgres.ConnOptions{Supervisor: settings})
	require.NoError(t, err)
	p, err := postgres.NewPool(dsn("fence-pool"), postgres.PoolOptions{Supervisor: settings})
	require.NoError(t, err)
	const ping = 300 * time.Millisecond
	l := newListener(t, dsn("fence-listener"), postgres.ListenerOptions{Channels: []string{"fence"}, PingInterval: ping})
	for _, r := range []runner{c, p, l} {
		testkit.Run(t, r)
		testkit.WaitStatus(t, r, 10*time.Second, "connected", testkit.InState(health.Connected))
	}
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop()
	wg.Go(func() { // NOTIFY every 50ms: the Listener never goes silent
		for ctx.Err() == nil {
			_, _ = admin.Exec(ctx, "NOTIFY fence")
			time.Sleep(50 * time.Millisecond)
		}
	})
	wg.Go(func() {
		for range l.Notifications(ctx) {
		}
	})
	time.Sleep(2 * ping) // notifications flow

	fenced := time.Now()
	srv.Fence(t)
	took := time.Since(fenced) // the sessions took it within: a reload, then a new session's check
	err = c.Do(t.Context(), func(ctx context.Context, conn *pgx.Conn) error { return insert(ctx, conn) })
	assert.Equal(t, "25006", sqlState(err))
	err = p.Do(t.Context(), func(ctx context.Context, conn *pgxpool.Conn) error { return insert(ctx, conn) })
	assert.Equal(t, "25006", sqlState(err))
	for _, r := range []runner{c, p, l} {
		tr := leftForRole(t, r, 10*time.Second)
		t.Logf("%s: %v after the fence: %v", r.Name(), tr.At.Sub(fenced).Round(time.Millisecond), tr.Err)
		if r == runner(l) {
			// Every PingInterval; 2s more for the ping's round trip and
			// the supervisor's turn on a busy machine under -race.
			assert.Less(t, tr.At.Sub(fenced), took+ping+2*time.Second, "the Listener asks every PingInterval")
		}
	}
	srv.Unfence(t)
	for _, r := range []runner{c, p, l} {
		testkit.WaitStatus(t, r, 10*time.Second, "back", testkit.InState(health.Connected))
	}
	stop()
	require.NoError(t, c.Do(t.Context(), func(ctx context.Context, conn *pgx.Conn) error { return insert(ctx, conn) }))
}

// The mirror rule: under target_session_attrs=standby a standby that is
// promoted answers in_hot_standby off with its next statement. The Conn
// and the Pool leave it (ErrWrongRole), find no standby while the old
// primary is down, and are Connected to it once it follows the new one.
func TestAPromotedStandbyIsLeft(t *testing.T) {
	t.Parallel()
	a, b := pgtest.StartPair(t, pgtest.Options{})
	dsn := func(app string) string {
		return fmt.Sprintf("host=%[1]s,%[1]s port=%d,%d user=%s password=%s dbname=postgres target_session_attrs=standby application_name=%s",
			pgtest.Host, b.Port(), a.Port(), pgtest.User, a.Password(), app)
	}
	settings := supervisor.Settings{Backoff: fast}
	c, err := postgres.NewConn(dsn("standby-conn"), postgres.ConnOptions{Supervisor: settings})
	require.NoError(t, err)
	p, err := postgres.NewPool(dsn("standby-pool"), postgres.PoolOptions{Supervisor: settings})
	require.NoError(t, err)
	read := func(ctx context.Context, q interface {
		Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
	}) error {
		_, err := q.Exec(ctx, "SELECT 1")
		return err
	}
	for _, r := range []runner{c, p} {
		testkit.Run(t, r)
		st := testkit.WaitStatus(t, r, 10*time.Second, "connected", testkit.InState(health.Connected))
		require.Equal(t, b.Addr(), st.Endpoint)
	}
	b.Promote(t)
	a.Stop(t, pgtest.Fast)
	require.NoError(t, c.Do(t.Context(), func(ctx context.Context, conn *pgx.Conn) error { return read(ctx, conn) }),
		"the read works: the server is no standby, which only the report tells")
	require.NoError(t, p.Do(t.Context(), func(ctx context.Context, conn *pgxpool.Conn) error { return read(ctx, conn) }))
	for _, r := range []runner{c, p} {
		tr := leftForRole(t, r, 10*time.Second)
		t.Logf("%s: %v", r.Name(), tr.Err)
	}
	a.Follow(t, b)
	for _, r := range []runner{c, p} {
		st := testkit.WaitStatus(t, r, 20*time.Second, "on the new standby", testkit.InState(health.Connected))
		assert.Equal(t, a.Addr(), st.Endpoint)
	}
}

// TestAPoolStopsDiallingAFencedHost: a Pool on A (host=A,B read-write)
// whose one connection is held while A is fenced, under 20 callers: each
// needs a new connection, which pgx refuses at connect (read only). The
// first refusal moves the Pool to B; A is not dialled in a loop (issue
// 29: it was, once per call, while the held connection counted as
// working).
func TestAPoolStopsDiallingAFencedHost(t *testing.T) {
	t.Parallel()
	a := pgtest.Start(t, pgtest.Options{})
	var dials sync.Map // addr -> *atomic.Int64
	count := func(addr string) *atomic.Int64 {
		n, _ := dials.LoadOrStore(addr, new(atomic.Int64))
		return n.(*atomic.Int64)
	}
	dsn := fmt.Sprintf("host=%[1]s,%[1]s port=%d,%d user=%s password=%s dbname=postgres target_session_attrs=read-write application_name=dial-loop",
		pgtest.Host, a.Port(), shared.Port(), pgtest.User, a.Password())
	p, err := postgres.NewPool(dsn, postgres.PoolOptions{Configure: func(cfg *pgxpool.Config) {
		cfg.MaxConns = 4
		cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			count(addr).Add(1)
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}
	}})
	require.NoError(t, err)
	testkit.Run(t, p)
	st := testkit.WaitStatus(t, p, 10*time.Second, "connected", testkit.InState(health.Connected))
	require.Equal(t, a.Addr(), st.Endpoint)

	held, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = p.Do(t.Context(), func(ctx context.Context, conn *pgxpool.Conn) error { close(held); <-release; return nil })
	})
	<-held
	a.Fence(t)
	before := count(a.Addr()).Load()
	ctx, stop := context.WithTimeout(t.Context(), time.Second)
	for range 20 {
		wg.Go(func() {
			for ctx.Err() == nil {
				_ = p.Do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error { _, err := conn.Exec(ctx, "SELECT 1"); return err })
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	<-ctx.Done()
	close(release)
	wg.Wait()
	stop()
	toA := count(a.Addr()).Load() - before
	st = testkit.WaitStatus(t, p, 10*time.Second, "on B", testkit.InState(health.Connected))
	t.Logf("dials to fenced A in 1s of 20 callers: %d; then %s on %s", toA, st.State, st.Endpoint)
	assert.Equal(t, shared.Addr(), st.Endpoint)
	// pgx's refused dial, and those of callers that raced it (at most
	// MaxConns), each twice with sslmode=prefer.
	assert.LessOrEqual(t, toA, int64(2*(4+1)), "the Pool kept dialling A")
}
