package postgres_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// Replace on a Pool with idle connections and a query under way: the
// idle backends end and fresh ones serve from then on, the query
// completes on its own backend (closed once it is released), Connects
// counts the replacement and the state never leaves Connected.
func TestPoolReplaceRenewsTheConnections(t *testing.T) {
	const app = "pool-replace"
	admin := shared.Connect(t)
	p, err := postgres.NewPool(shared.DSN("application_name", app, "pool_max_conns", "4"), postgres.PoolOptions{
		PingInterval: time.Hour, Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	testkit.Run(t, p)
	testkit.WaitStatus(t, p, 10*time.Second, "connected", testkit.InState(health.Connected))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	pidOf := func(pids *[]uint32, mu *sync.Mutex, sleep string) func(ctx context.Context, conn *pgxpool.Conn) error {
		return func(ctx context.Context, conn *pgxpool.Conn) error {
			mu.Lock()
			*pids = append(*pids, conn.Conn().PgConn().PID())
			mu.Unlock()
			_, err := conn.Exec(ctx, "SELECT pg_sleep("+sleep+")")
			return err
		}
	}
	// Three queries at once leave three idle connections.
	var mu sync.Mutex
	var before []uint32
	var held sync.WaitGroup
	for range 3 {
		held.Go(func() { assert.NoError(t, p.Do(ctx, pidOf(&before, &mu, "0.1"))) })
	}
	held.Wait()
	require.Len(t, backendPIDs(t, admin, app), 3)

	var inFlight []uint32
	did := make(chan error, 1)
	go func() { did <- p.Do(ctx, pidOf(&inFlight, &mu, "0.5")) }()
	for {
		mu.Lock()
		started := len(inFlight) == 1
		mu.Unlock()
		if started {
			break
		}
		time.Sleep(time.Millisecond)
	}
	p.Replace()
	testkit.WaitStatus(t, p, 10*time.Second, "replaced", func(st health.Status) bool { return st.Connects == 2 })
	idle := slices.DeleteFunc(slices.Clone(before), func(pid uint32) bool { return pid == inFlight[0] })
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := 0
		for _, pid := range backendPIDs(t, admin, app) {
			if slices.Contains(idle, uint32(pid)) {
				left++
			}
		}
		if left == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "%d idle backends of before Replace are still there", left)
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, <-did, "the query under way completed")

	var after []uint32
	require.NoError(t, p.Do(ctx, pidOf(&after, &mu, "0")))
	assert.NotContains(t, before, after[0], "a fresh backend serves")
	assert.NotContains(t, backendPIDs(t, admin, app), int32(inFlight[0]), "the in-flight query's backend closed once released")
	for _, tr := range p.History() {
		assert.NotEqual(t, health.Backoff, tr.To)
	}
	st := p.Status()
	assert.Equal(t, health.Connected, st.State)
	assert.Equal(t, uint64(2), st.Connects)
	assert.Zero(t, st.Failures)
}
