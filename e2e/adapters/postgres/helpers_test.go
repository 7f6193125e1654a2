package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// fast is a backoff small enough for tests.
var fast = backoff.Config{Base: 20 * time.Millisecond, Cap: 200 * time.Millisecond}

// runner is a Conn, Listener or Pool.
type runner = testkit.Runner

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
