package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// TestConnDoSerialisesItsCallers: 8 goroutines run queries through one
// Conn's Do at once, with pgx's statement cache at work (a parameterised
// query): each f runs alone (the race detector watches pgx's cache), none
// gets "conn busy", every answer is right, and the connection is never
// invalidated.
func TestConnDoSerialisesItsCallers(t *testing.T) {
	s, err := postgres.NewConn(shared.DSN(), postgres.ConnOptions{Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	testkit.Run(t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				var got int
				err := s.Do(ctx, func(ctx context.Context, conn *pgx.Conn) error {
					n := inside.Add(1)
					defer inside.Add(-1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					return conn.QueryRow(ctx, "SELECT $1::int + $2::int", g, i).Scan(&got)
				})
				if !assert.NoError(t, err, "caller %d, query %d", g, i) {
					return
				}
				assert.Equal(t, g+i, got)
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, 1, most.Load(), "two callers' functions ran at once")
	st := s.Status()
	assert.Equal(t, health.Connected, st.State)
	assert.EqualValues(t, 1, st.Connects, "a caller's query cost the connection: %v", st.Err)
}

// TestConnDoWaitsForItsTurnWithItsContext: while one caller's function
// runs, another Do waits, and its ctx ends the wait (its f never runs);
// then the next one runs.
func TestConnDoWaitsForItsTurnWithItsContext(t *testing.T) {
	s, err := postgres.NewConn(shared.DSN(), postgres.ConnOptions{Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	testkit.Run(t, s)
	testkit.WaitStatus(t, s, 10*time.Second, "connected", testkit.InState(health.Connected))
	entered, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Do(t.Context(), func(ctx context.Context, conn *pgx.Conn) error {
			close(entered)
			<-release
			return conn.Ping(ctx)
		})
	}()
	<-entered
	short, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	err = s.Do(short, func(context.Context, *pgx.Conn) error {
		t.Error("f ran while another caller's did")
		return nil
	})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "busy")
	close(release)
	require.NoError(t, <-first)
	require.NoError(t, s.Do(t.Context(), func(ctx context.Context, conn *pgx.Conn) error { return conn.Ping(ctx) }))
}

// TestConnCallerDeadline: a caller's deadline (100ms) interrupts a query
// of a Conn with the supervisor's default backoff (1s and up). By default
// pgx sends a cancel request and keeps the connection: nothing changes,
// the same backend answers. With pgx's closing context watcher set back
// (Configure) pgx closes that connection: the Conn has it replaced at
// once, without a loss (Connected, Connecting, Connected: no Backoff, no
// failure, no outage), and the next caller's query works on a new backend.
func TestConnCallerDeadline(t *testing.T) {
	interrupt := func(t *testing.T, s *postgres.Conn) error {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		return s.Do(ctx, func(ctx context.Context, conn *pgx.Conn) error {
			_, err := conn.Exec(ctx, "SELECT pg_sleep(1)")
			return err
		})
	}
	pid := func(t *testing.T, s *postgres.Conn) uint32 {
		var pid uint32
		require.NoError(t, s.Do(t.Context(), func(ctx context.Context, conn *pgx.Conn) error {
			return conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid)
		}))
		return pid
	}
	t.Run("pgx closes it", func(t *testing.T) {
		s, err := postgres.NewConn(shared.DSN(), postgres.ConnOptions{Configure: func(cfg *pgx.ConnConfig) {
			cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
				return &pgconn.DeadlineContextWatcherHandler{Conn: pc.Conn()}
			}
		}})
		require.NoError(t, err)
		testkit.Run(t, s)
		before := pid(t, s)
		began := time.Now()
		err = interrupt(t, s)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		after := pid(t, s)
		took := time.Since(began)
		assert.NotEqual(t, before, after, "the connection pgx closed was handed out again")
		h := s.History()
		var path []health.State
		for _, tr := range h {
			path = append(path, tr.To)
		}
		require.Equal(t, []health.State{health.Connecting, health.Connected, health.Connecting, health.Connected}, path, "%+v", h)
		assert.ErrorIs(t, h[2].Err, supervisor.ErrReplaced)
		assert.ErrorIs(t, h[2].Err, context.DeadlineExceeded)
		st := s.Status()
		assert.Zero(t, st.Failures)
		assert.Zero(t, st.LastFailure, "a caller's deadline counted as a failure")
		assert.Zero(t, st.LongestOutage, "a caller's deadline counted as an outage")
		assert.NoError(t, st.Err)
		assert.EqualValues(t, 2, st.Connects)
		assert.Equal(t, 1, st.ReconnectsLastMinute)
		t.Logf("caller's deadline: %v, not ready for %v, next query %v after the interrupted one began",
			path[1:], h[3].At.Sub(h[2].At).Round(time.Microsecond), took.Round(time.Millisecond))
	})
	t.Run("pgx keeps it", func(t *testing.T) {
		s, err := postgres.NewConn(shared.DSN(), postgres.ConnOptions{})
		require.NoError(t, err)
		testkit.Run(t, s)
		before := pid(t, s)
		rec := testkit.Record(s)
		err = interrupt(t, s)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		var pg *pgconn.PgError
		require.ErrorAs(t, err, &pg)
		assert.Equal(t, "57014", pg.Code)
		assert.Equal(t, before, pid(t, s), "the connection pgx kept was replaced")
		assert.Equal(t, []health.State{health.Connected}, rec.Stop())
	})
}

// TestKindsOnOneDSNAreToldApart runs a Conn, a Listener and a Pool on one
// DSN with one logger and one Registry: their default Names differ (and
// say the kind), and so do their log records, Status and probe rows.
func TestKindsOnOneDSNAreToldApart(t *testing.T) {
	var logs testkit.Buffer
	o := supervisor.Settings{Backoff: fast, Logger: jsonLogger(&logs)}
	rs := map[string]runner{}
	for kind, build := range kinds {
		rs[kind] = build(t, shared.DSN(), o)
	}
	var reg health.Registry
	names := map[string]bool{}
	for kind, r := range rs {
		testkit.Run(t, r)
		testkit.WaitStatus(t, r, 10*time.Second, "connected", testkit.InState(health.Connected))
		assert.True(t, strings.HasPrefix(r.Name(), "postgres "+kind+" postgres://"), r.Name())
		names[r.Status().Name] = true
		reg.Add(r.Name(), r, health.SourceOptions{Critical: true})
	}
	assert.Len(t, names, 3, "names: %v", names)
	for name := range names { // logged just after the Status is published
		logs.WaitFor(t, `"msg":"connected","`+supervisor.LogName+`":"`+name+`"`, 10*time.Second)
	}
	logged := map[string]bool{}
	for line := range strings.Lines(logs.String()) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		if rec["msg"] == "connected" {
			logged[fmt.Sprint(rec[supervisor.LogName])] = true
		}
	}
	assert.Equal(t, names, logged, "the log records' names")
	assert.Len(t, reg.Entries(), 3, "the Registry's rows")
}

// TestConnClosesItsConnectionInItsTurn: Run's ctx ends while a
// Connections loop body holds the connection, idle. The supervisor cuts
// the network connection, so that the body's next query fails, but writes
// nothing to it (pgx's Close would send Terminate on a *pgx.Conn in use: a
// data race in pgconn) until the body returned; then Run returns.
func TestConnClosesItsConnectionInItsTurn(t *testing.T) {
	var idle, wrote atomic.Bool
	cut := make(chan struct{})
	var once sync.Once
	s, err := postgres.NewConn(shared.DSN(), postgres.ConnOptions{
		Configure: func(cfg *pgx.ConnConfig) {
			cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
				nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return &watchedConn{Conn: nc, write: func() { wrote.Store(wrote.Load() || idle.Load()) }, close: func() {
					if idle.Load() {
						once.Do(func() { close(cut) })
					}
				}}, nil
			}
		},
		Supervisor: supervisor.Settings{Backoff: fast},
	})
	require.NoError(t, err)
	runCtx, stopRun := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(runCtx) }()
	t.Cleanup(func() { stopRun(); <-s.Done() })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	entered, bodyErr := make(chan struct{}), make(chan error, 1)
	go func() {
		for conn := range s.Connections(ctx) {
			if err := conn.Ping(ctx); err != nil {
				bodyErr <- err
				return
			}
			idle.Store(true)
			close(entered)
			select {
			case <-cut:
			case <-ctx.Done():
			}
			idle.Store(false)
			bodyErr <- conn.Ping(ctx)
			return
		}
	}()
	select {
	case <-entered:
	case err := <-bodyErr:
		t.Fatalf("the loop body's first ping: %v", err)
	}
	stopRun()
	err = <-bodyErr
	require.NoError(t, ctx.Err(), "the connection was never cut under the loop body")
	assert.False(t, wrote.Load(), "the supervisor wrote to the connection while the loop body held it")
	assert.True(t, postgres.IsConnError(err), "the body's query on the cut connection: %v", err)
	require.NoError(t, <-ran)
}

// watchedConn reports its writes and its Close.
type watchedConn struct {
	net.Conn
	write, close func()
}

func (c *watchedConn) Write(b []byte) (int, error) { c.write(); return c.Conn.Write(b) }
func (c *watchedConn) Close() error                { c.close(); return c.Conn.Close() }
