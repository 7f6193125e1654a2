package postgres_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
)

// fast is a backoff small enough for tests.
var fast = backoff.Config{Base: 20 * time.Millisecond, Cap: 200 * time.Millisecond}

// runner is a Supervisor, Listener or Pool.
type runner interface {
	Run(ctx context.Context) error
	Status() health.Status
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

// waitFor waits, up to d, for a Status that satisfies ok, and returns it.
func waitFor(t *testing.T, r runner, d time.Duration, what string, ok func(health.Status) bool) health.Status {
	t.Helper()
	ch, unsub := r.Subscribe()
	defer unsub()
	timer := time.NewTimer(d)
	defer timer.Stop()
	var last health.Status
	for {
		select {
		case st := <-ch:
			if ok(st) {
				return st
			}
			last = st
		case <-timer.C:
			t.Fatalf("no %s within %v; last status: %s attempt %d err %v", what, d, last.State, last.Attempt, last.Err)
		}
	}
}

func isState(s health.State) func(health.Status) bool {
	return func(st health.Status) bool { return st.State == s }
}

// recorder collects every State a subscriber sees, dropping repeats.
type recorder struct {
	mu     sync.Mutex
	states []health.State
	unsub  func()
	done   chan struct{}
}

func record(r runner) *recorder {
	ch, unsub := r.Subscribe()
	rec := &recorder{unsub: unsub, done: make(chan struct{})}
	go func() {
		defer close(rec.done)
		for st := range ch {
			rec.mu.Lock()
			if n := len(rec.states); n == 0 || rec.states[n-1] != st.State {
				rec.states = append(rec.states, st.State)
			}
			rec.mu.Unlock()
		}
	}()
	return rec
}

// stop ends the recording and returns the states seen.
func (r *recorder) stop() []health.State {
	r.unsub()
	<-r.done
	return r.states
}

// nextEvent returns the Listener's next Event, failing after d.
func nextEvent(t *testing.T, l *postgres.Listener, d time.Duration) postgres.Event {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case ev, ok := <-l.Events():
		require.True(t, ok, "Events closed")
		return ev
	case <-timer.C:
		t.Fatalf("no event within %v; listener %s, err %v", d, l.Status().State, l.Status().Err)
	}
	panic("unreachable")
}

// notify sends pg_notify(channel, payload) on the test's own connection.
func notify(t *testing.T, conn *pgx.Conn, channel, payload string) {
	t.Helper()
	_, err := conn.Exec(t.Context(), "SELECT pg_notify($1, $2)", channel, payload)
	require.NoError(t, err)
}

// logBuffer is a slog destination that tests read after the fact.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// readyBody returns the verbose readiness JSON for one critical source.
func readyBody(src health.Source) string {
	var reg health.Registry
	reg.Add("db", src, true)
	rec := httptest.NewRecorder()
	reg.ReadyHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/readyz?verbose=1", nil))
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

// expect reads the next event and checks it is the notification want on
// channel.
func expect(t *testing.T, l *postgres.Listener, channel, payload string) {
	t.Helper()
	ev := nextEvent(t, l, 10*time.Second)
	require.Equal(t, postgres.Event{Channel: channel, Payload: payload, PID: ev.PID}, ev)
}

// expectMissed reads the next event and checks it is a Missed event.
func expectMissed(t *testing.T, l *postgres.Listener, d time.Duration) {
	t.Helper()
	ev := nextEvent(t, l, d)
	require.Equal(t, postgres.Event{Missed: true}, ev)
}
