package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/pgtest"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// TestListenWaitsForTheNextConnect calls Listen while the server is down:
// it returns once the reconnected Listener LISTENs on the channel.
func TestListenWaitsForTheNextConnect(t *testing.T) {
	t.Parallel()
	c := pgtest.Start(t, pgtest.Options{})
	l := newListener(t, postgres.ListenerOptions{Options: postgres.Options{DSN: c.DSN()}, Channels: []string{"first"}})
	start(t, l)
	testkit.WaitStatus(t, l, 10*time.Second, "connected", testkit.InState(health.Connected))
	c.Stop(t, pgtest.Fast)
	testkit.WaitStatus(t, l, 10*time.Second, "backoff", testkit.InState(health.Backoff))

	listened := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		listened <- l.Listen(ctx, "second")
	}()
	short, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, l.Listen(short, "third"), context.DeadlineExceeded, "Listen cannot succeed while the server is down")
	c.Start(t)
	require.NoError(t, <-listened)
	expectMissed(t, l, 10*time.Second)
	sender := c.Connect(t)
	for _, ch := range []string{"first", "second", "third"} { // "third" stayed in the set
		notify(t, sender, ch, "x")
		expect(t, l, ch, "x")
	}
}

// TestRunTwice: a second Run returns ErrAlreadyStarted and leaves the
// first one's Events channel and pool alone.
func TestRunTwice(t *testing.T) {
	o := postgres.Options{DSN: shared.DSN(), Backoff: fast}
	l, err := postgres.NewListener(postgres.ListenerOptions{Options: o, Channels: []string{"twice"}})
	require.NoError(t, err)
	p, err := postgres.NewPool(postgres.PoolOptions{Options: o})
	require.NoError(t, err)
	for _, r := range []runner{l, p} {
		stop := start(t, r)
		testkit.WaitStatus(t, r, 10*time.Second, "connected", testkit.InState(health.Connected))
		assert.ErrorIs(t, r.Run(context.Background()), supervisor.ErrAlreadyStarted)
		assert.Equal(t, health.Connected, r.Status().State)
		require.NoError(t, stop())
		assert.Equal(t, health.Stopped, r.Status().State)
	}
	_, open := <-l.Events()
	assert.False(t, open)
}

// TestPoolRunClosesThePool: the pool lives as long as Run.
func TestPoolRunClosesThePool(t *testing.T) {
	p, err := postgres.NewPool(postgres.PoolOptions{Options: postgres.Options{DSN: shared.DSN(), Backoff: fast}})
	require.NoError(t, err)
	stop := start(t, p)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	pool, err := p.Conn(ctx)
	require.NoError(t, err)
	assert.ErrorIs(t, p.Run(ctx), supervisor.ErrAlreadyStarted)
	require.NoError(t, pool.Ping(ctx), "a second Run closed the pool")
	require.NoError(t, stop())
	assert.Error(t, pool.Ping(ctx), "the pool outlived Run")
	_, err = p.Conn(ctx)
	assert.ErrorIs(t, err, supervisor.ErrStopped)
}
