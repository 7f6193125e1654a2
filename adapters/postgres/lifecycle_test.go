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
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// TestListenWaitsForTheNextConnect calls Listen while the server is down:
// it returns once the reconnected Listener LISTENs on the channel.
func TestListenWaitsForTheNextConnect(t *testing.T) {
	t.Parallel()
	c := pgtest.Start(t, pgtest.Options{})
	l := newListener(t, c.DSN(), postgres.ListenerOptions{Channels: []string{"first"}})
	testkit.Run(t, l)
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
// first one's Listener and pool alone.
func TestRunTwice(t *testing.T) {
	o := supervisor.Settings{Backoff: fast}
	l, err := postgres.NewListener(shared.DSN(), postgres.ListenerOptions{Channels: []string{"twice"}, Supervisor: o})
	require.NoError(t, err)
	p, err := postgres.NewPool(shared.DSN(), postgres.PoolOptions{Supervisor: o})
	require.NoError(t, err)
	for _, r := range []runner{l, p} {
		stop := testkit.Run(t, r)
		testkit.WaitStatus(t, r, 10*time.Second, "connected", testkit.InState(health.Connected))
		assert.ErrorIs(t, r.Run(context.Background()), supervisor.ErrAlreadyStarted)
		assert.Equal(t, health.Connected, r.Status().State)
		select {
		case <-r.Done():
			t.Fatal("Done closed by the second Run")
		default:
		}
		require.NoError(t, stop())
		assert.Equal(t, health.Stopped, r.Status().State)
		<-r.Done()
		assert.NoError(t, r.Err())
	}
	for n, err := range l.Notifications(context.Background()) {
		t.Fatalf("a delivery after Run returned: %v, %v", n, err)
	}
}

// TestPoolRunClosesThePool: the pool lives as long as Run, which returns
// only once it is closed: a BeforeClose hook holds the closing pool, and
// Run waits for it.
func TestPoolRunClosesThePool(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	p, err := postgres.NewPool(shared.DSN(), postgres.PoolOptions{
		Supervisor: supervisor.Settings{Backoff: fast},
		Configure: func(c *pgxpool.Config) {
			c.BeforeClose = func(*pgx.Conn) {
				select {
				case entered <- struct{}{}:
				default:
				}
				<-release
			}
		},
	})
	require.NoError(t, err)
	runCtx, stopRun := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- p.Run(runCtx) }()
	t.Cleanup(func() { stopRun(); <-p.Done() })
	t.Cleanup(unblock) // first
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	pool, err := p.Sup().Conn(ctx)
	require.NoError(t, err)
	assert.ErrorIs(t, p.Run(ctx), supervisor.ErrAlreadyStarted)
	require.NoError(t, pool.Ping(ctx), "a second Run closed the pool")
	assert.NoError(t, p.Err(), "Err before Done")

	stopRun()
	<-entered // the pool closes its connection; BeforeClose holds it
	select {
	case <-ran:
		t.Fatal("Run returned before the pool was closed")
	case <-time.After(100 * time.Millisecond): // a bound on what must not happen
	}
	unblock()
	require.NoError(t, <-ran)
	assert.Error(t, pool.Ping(ctx), "the pool outlived Run")
	assert.NoError(t, p.Err())
	_, err = p.Sup().Conn(ctx)
	assert.ErrorIs(t, err, supervisor.ErrStopped)
}
