package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// vault hands out the role's password as BeforeConnect, the way a
// secrets manager or an IAM token source would: it knows one password at
// a time, and may fail.
type vault struct {
	mu       sync.Mutex
	password string
	fail     error // returned, after setting the password, while set
	calls    atomic.Int64
}

func (v *vault) set(password string, fail error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.password, v.fail = password, fail
}

func (v *vault) beforeConnect(_ context.Context, cfg *pgconn.Config) error {
	v.calls.Add(1)
	v.mu.Lock()
	defer v.mu.Unlock()
	cfg.Password = v.password
	return v.fail
}

// TestBeforeConnectRotatesThePassword rotates a role's password on a real
// server (ALTER ROLE ... PASSWORD) and ends its sessions, as a rotation
// and a failover would, while BeforeConnect still hands out the old one,
// then fails for a while with an error that quotes the new one, then
// learns it. The Pool, the Listener and the Conn must come back without
// ever going Failed, the Pool with the same *pgxpool.Pool, whose queries
// work again; what BeforeConnect returned never shows.
func TestBeforeConnectRotatesThePassword(t *testing.T) {
	const role, oldPassword, newPassword = "rotor", "Qz7-old-secret", "Qz7-new-secret"
	c := shared
	admin := c.Connect(t)
	_, err := admin.Exec(t.Context(), fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", role, oldPassword))
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '"+role+"'")
		_, _ = admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role)
	})
	dsn := c.URL(role, oldPassword, "postgres", "application_name", "rotor")

	v := &vault{password: oldPassword}
	var logs testkit.Buffer
	o := supervisor.Settings{Backoff: fast, Logger: jsonLogger(&logs)}
	p, err := postgres.NewPool(dsn, postgres.PoolOptions{BeforeConnect: v.beforeConnect, Supervisor: o, PingInterval: 50 * time.Millisecond})
	require.NoError(t, err)
	l, err := postgres.NewListener(dsn, postgres.ListenerOptions{Channels: []string{"rot"}, BeforeConnect: v.beforeConnect, Supervisor: o})
	require.NoError(t, err)
	s, err := postgres.NewConn(dsn, postgres.ConnOptions{BeforeConnect: v.beforeConnect, Supervisor: supervisor.Settings{Backoff: fast, Logger: o.Logger}})
	require.NoError(t, err)
	kinds := map[string]runner{"pool": p, "listener": l, "conn": s}
	for _, r := range kinds {
		testkit.Run(t, r)
		testkit.WaitStatus(t, r, 10*time.Second, "connected", testkit.InState(health.Connected))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	pool, err := p.Sup().Conn(ctx)
	require.NoError(t, err)
	recs := map[string]*testkit.Recorder{}
	for name, r := range kinds {
		recs[name] = testkit.Record(r)
	}

	_, err = admin.Exec(ctx, fmt.Sprintf("ALTER ROLE %s PASSWORD '%s'", role, newPassword))
	require.NoError(t, err)
	require.NotZero(t, terminate(t, admin, "rotor"), "the role's sessions")
	err = s.Do(ctx, func(ctx context.Context, conn *pgx.Conn) error { return conn.Ping(ctx) })
	require.True(t, postgres.IsConnError(err), "the Conn learns of it from a query: %v", err)
	for name, r := range kinds {
		st := testkit.WaitStatus(t, r, 10*time.Second, name+" refused with the old password", func(st health.Status) bool {
			return st.State == health.Failed || st.State == health.Backoff && st.ConsecutiveFailures >= 2 && errors.As(st.Err, new(*pgconn.PgError))
		})
		require.Equal(t, health.Backoff, st.State, "%s gave up on a refused login although BeforeConnect is set: %v", name, st.Err)
		assert.ErrorContains(t, st.Err, "28P01", name)
	}
	_, err = pool.Exec(ctx, "SELECT 1")
	require.Error(t, err, "the pool's dials still carry the old password")

	v.set(newPassword, fmt.Errorf("vault: lease on %q not active yet", newPassword))
	for name, r := range kinds {
		st := testkit.WaitStatus(t, r, 10*time.Second, name+" failing in BeforeConnect", func(st health.Status) bool {
			return st.State == health.Failed || st.State == health.Backoff && st.Err != nil && strings.Contains(st.Err.Error(), "vault")
		})
		require.Equal(t, health.Backoff, st.State, "%s: %v", name, st.Err)
		assert.ErrorContains(t, st.Err, "BeforeConnect: vault: lease on", name)
		assert.NotContains(t, st.Err.Error(), newPassword, "%s shows the password BeforeConnect set", name)
		assert.False(t, holds(st.Err, newPassword), "%s: the password BeforeConnect set is reachable from Status.Err", name)
	}

	v.set(newPassword, nil)
	for name, r := range kinds {
		testkit.WaitStatus(t, r, 10*time.Second, name+" connected with the new password", testkit.InState(health.Connected))
	}
	for name, rec := range recs {
		states := rec.Stop()
		assert.NotContains(t, states, health.Failed, "%s: %v", name, states)
		assert.Contains(t, states, health.Backoff, "%s never noticed the rotation: %v", name, states)
	}
	same, err := p.Sup().Conn(ctx)
	require.NoError(t, err)
	assert.Same(t, pool, same, "the program keeps its *pgxpool.Pool")
	var one int
	require.NoError(t, pool.QueryRow(ctx, "SELECT 1").Scan(&one), "the program's pool works again")
	require.NoError(t, s.Do(ctx, func(ctx context.Context, conn *pgx.Conn) error { return conn.Ping(ctx) }))
	expectMissed(t, l, 10*time.Second)
	notify(t, admin, "rot", "after")
	expect(t, l, "rot", "after")
	assert.Greater(t, v.calls.Load(), int64(6), "BeforeConnect runs before every dial")
	for _, secret := range []string{oldPassword, newPassword} {
		assert.NotContains(t, logs.String(), secret)
		assert.NotContains(t, readyBody(p), secret)
	}
}
