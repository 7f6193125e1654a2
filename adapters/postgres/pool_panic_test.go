package postgres_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// TestPoolHookPanicOutsideAnAttempt: BeforeConnect panics on a dial that
// pgxpool makes for a query, on its own goroutine, while the Pool is
// Connected. The query fails with an error wrapping supervisor.ErrPanicked,
// the Pool is Failed with it at once, and Run panics with the value. (In
// Backoff, Do dials no more: only the supervisor's attempts call the hook.)
func TestPoolHookPanicOutsideAnAttempt(t *testing.T) {
	var panicking atomic.Bool
	v := errors.New("the hook's panic value")
	p, err := postgres.NewPool(shared.DSN(), postgres.PoolOptions{
		PingInterval: time.Hour,
		BeforeConnect: func(context.Context, *pgconn.Config) error {
			if panicking.Load() {
				panic(v)
			}
			return nil
		},
		Supervisor: supervisor.Settings{Backoff: backoff.Config{Strategy: backoff.Exponential, Base: time.Hour, Cap: time.Hour}},
	})
	require.NoError(t, err)
	runCtx, stopRun := context.WithCancel(context.Background())
	t.Cleanup(stopRun)
	panicked := make(chan any, 1)
	go func() {
		defer func() { panicked <- recover() }()
		_ = p.Run(runCtx)
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	pool, err := p.Sup().Conn(ctx)
	require.NoError(t, err)
	panicking.Store(true)
	pool.Reset() // the next query dials
	err = p.Do(ctx, selectOne)
	assert.ErrorIs(t, err, supervisor.ErrPanicked)
	select {
	case got := <-panicked:
		assert.Equal(t, v, got, "Run's panic")
	case <-ctx.Done():
		t.Fatal("Run did not panic")
	}
	assert.ErrorIs(t, p.Err(), supervisor.ErrPanicked)
	assert.Equal(t, health.Failed, p.Status().State)
}
