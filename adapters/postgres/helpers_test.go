package postgres_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/redialtest"
)

// fast is a backoff small enough for tests.
var fast = backoff.Config{Base: 20 * time.Millisecond, Cap: 200 * time.Millisecond}

// runner is a Supervisor, Listener or Pool: the one shape.
type runner = redialtest.Client

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

// notify sends pg_notify(channel, payload) on the test's own connection.
func notify(t *testing.T, conn *pgx.Conn, channel, payload string) {
	t.Helper()
	_, err := conn.Exec(t.Context(), "SELECT pg_notify($1, $2)", channel, payload)
	require.NoError(t, err)
}

// jsonLogger writes Debug and up to b as JSON.
func jsonLogger(b *testkit.Buffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// readyBody returns the verbose readiness JSON for one critical source.
func readyBody(src health.Source) string {
	var reg health.Registry
	reg.Add("db", src, health.SourceOptions{Critical: true})
	rec := httptest.NewRecorder()
	healthhttp.ReadyHandler(&reg).ServeHTTP(rec, httptest.NewRequest("GET", "/readyz?verbose=1", nil))
	return rec.Body.String()
}

// backendPIDs returns the server pids of the connections whose
// application_name is app.
func backendPIDs(t *testing.T, admin *pgx.Conn, app string) []int32 {
	t.Helper()
	rows, err := admin.Query(t.Context(), "SELECT pid FROM pg_stat_activity WHERE application_name = $1", app)
	require.NoError(t, err)
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	require.NoError(t, err)
	return pids
}

// terminate ends the server sessions of app with pg_terminate_backend and
// returns how many there were.
func terminate(t *testing.T, admin *pgx.Conn, app string) int {
	t.Helper()
	pids := backendPIDs(t, admin, app)
	for _, pid := range pids {
		_, err := admin.Exec(t.Context(), "SELECT pg_terminate_backend($1)", pid)
		require.NoError(t, err)
	}
	return len(pids)
}

// expect reads the next delivery and checks it is the notification
// payload on channel.
func expect(t *testing.T, l *postgres.Listener, channel, payload string) {
	t.Helper()
	n, err := next(t, l, 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, postgres.Notification{Channel: channel, Payload: payload, PID: n.PID}, n)
}

// expectMissed reads the next delivery and checks it is the ErrMissed
// error; it returns it.
func expectMissed(t *testing.T, l *postgres.Listener, d time.Duration) error {
	t.Helper()
	n, err := next(t, l, d)
	require.ErrorIs(t, err, postgres.ErrMissed)
	require.Zero(t, n)
	return err
}
