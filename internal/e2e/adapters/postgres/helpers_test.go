package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
)

// fast is a backoff small enough for tests.
var fast = backoff.Config{Base: 20 * time.Millisecond, Cap: 200 * time.Millisecond}

// runner is a Listener or Pool.
type runner interface {
	Run(ctx context.Context) error
	Subscribe() (<-chan health.Status, func())
}

// start runs r until the test ends; stop ends it early and returns what
// Run returned.
func start(t *testing.T, r runner) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
	t.Cleanup(func() { stop() })
	return stop
}

// newListener builds a Listener on dsn with the fast backoff unless o
// sets one.
func newListener(t *testing.T, dsn string, o postgres.ListenerOptions) *postgres.Listener {
	t.Helper()
	if o.Supervisor.Backoff == (backoff.Config{}) {
		o.Supervisor.Backoff = fast
	}
	l, err := postgres.NewListener(dsn, o)
	require.NoError(t, err)
	return l
}

// next returns the Listener's next notification or error, failing after d
// or when the Listener is done with nothing more to deliver.
func next(t *testing.T, l *postgres.Listener, d time.Duration) (postgres.Notification, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	for n, err := range l.Notifications(ctx) {
		return n, err
	}
	select {
	case <-l.Done():
		t.Fatalf("the Listener ended: %v", l.Err())
	default:
		t.Fatalf("nothing within %v; listener %s, err %v", d, l.Status().State, l.Status().Err)
	}
	panic("unreachable")
}
