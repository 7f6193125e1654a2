package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
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

// TestPromotionRestartsTheOldPrimary is failover (a): with host=A,B
// target_session_attrs=read-write and every default, B is promoted and A
// stopped (fast) and then rewound to follow B. The Conn, the Pool and the
// Listener lose their sessions on A and end up on B (see failOver for the
// bounds); the Listener says ErrMissed once.
func TestPromotionRestartsTheOldPrimary(t *testing.T) {
	t.Parallel()
	w := failOver(t, "", func(t *testing.T, a, b *pgtest.Cluster) { a.Stop(t, pgtest.Fast) })
	w.log(t, "(a)", "stopped")
}

// TestPromotionFencesTheOldPrimary is failover (b): B is promoted and A
// fenced without breaking its sessions (default_transaction_read_only on
// and a reload): every write on A answers 25006. The Conn and the Pool
// find it with their next write, the Listener with its next ping
// (PingInterval), and each moves to B; the Pool's idle connections on A
// are closed and it dials A no more.
func TestPromotionFencesTheOldPrimary(t *testing.T) {
	t.Parallel()
	w := failOver(t, "wrong server role for target_session_attrs=read-write", func(t *testing.T, a, b *pgtest.Cluster) { a.Fence(t) })
	w.log(t, "(b)", "fenced")
}

// windows are the times from the start of B's promotion to the first
// write on B of the Conn and of the Pool, and to the Listener's first
// notification from B; trigger is when A's stop or fence began.
type windows struct{ conn, pool, listener, trigger time.Duration }

// log prints the windows, from the promotion's start and from A's
// demotion, in a form the report collects.
func (w windows) log(t *testing.T, failover, demoted string) {
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	t.Logf("failover %s: A %s from %v after the promotion began; from the promotion (from the demotion's start): conn %v (%v), pool %v (%v), listener %v (%v)",
		failover, demoted, r(w.trigger), r(w.conn), r(w.conn-w.trigger), r(w.pool), r(w.pool-w.trigger), r(w.listener), r(w.listener-w.trigger))
}

// failOver runs one failover of a pair under a Conn, a Pool (4 writers)
// and a Listener, with the stock slog JSON handler as their Logger: B is
// promoted, then demote does to A what the failover does. Each must be
// on B, its first write or notification there, within the bound: from
// A's demotion, the detection (the Conn's and the Pool's next write, 20ms
// apart; the Listener's next ping, PingInterval), the default
// FailoverSpread (Base/2, 500ms) and two logins (the connect and, for the
// Pool, its ping; measured now, see measureConnect), plus 250ms for the
// writers' and the notifier's pace. The logs say why (logged, a text
// they must hold) and never the password.
func failOver(t *testing.T, logged string, demote func(t *testing.T, a, b *pgtest.Cluster)) windows {
	a, b := pgtest.StartPair(t, pgtest.Options{})
	admin := a.Connect(t)
	_, err := admin.Exec(t.Context(), "CREATE TABLE w (who text, port int)")
	require.NoError(t, err)
	oneConnect := measureConnect(t, fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=postgres", pgtest.Host, b.Port(), pgtest.User, b.Password()))
	dsn := func(app string) string {
		return fmt.Sprintf("host=%[1]s,%[1]s port=%d,%d user=%s password=%s dbname=postgres target_session_attrs=read-write application_name=%s",
			pgtest.Host, a.Port(), b.Port(), pgtest.User, a.Password(), app)
	}
	var logs testkit.Buffer
	settings := supervisor.Settings{Logger: slog.New(slog.NewJSONHandler(&logs, nil))}
	var dialsToA atomic.Int64
	c, err := postgres.NewConn(dsn("fo-conn"), postgres.ConnOptions{Supervisor: settings})
	require.NoError(t, err)
	p, err := postgres.NewPool(dsn("fo-pool"), postgres.PoolOptions{Supervisor: settings, Configure: func(cfg *pgxpool.Config) {
		cfg.MaxConns = 4
		cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == a.Addr() {
				dialsToA.Add(1)
			}
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}
	}})
	require.NoError(t, err)
	l, err := postgres.NewListener(dsn("fo-listener"), postgres.ListenerOptions{Channels: []string{"fo"}, Supervisor: settings})
	require.NoError(t, err)
	for _, r := range []runner{c, p, l} {
		testkit.Run(t, r)
		st := testkit.WaitStatus(t, r, 20*time.Second, "connected to A", testkit.InState(health.Connected))
		require.Equal(t, a.Addr(), st.Endpoint)
	}

	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	t.Cleanup(func() { stop(); wg.Wait() })
	var promoted atomic.Pointer[time.Time]
	conn := firstOn(b.Port(), &promoted)
	pool := firstOn(b.Port(), &promoted)
	write := func(ctx context.Context, q interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}, who string) (int, error) {
		var port int
		err := q.QueryRow(ctx, "INSERT INTO w VALUES ($1, inet_server_port()) RETURNING port", who).Scan(&port)
		return port, err
	}
	loop := func(f func(ctx context.Context) (int, error), first *firstSuccess) {
		wg.Go(func() {
			for ctx.Err() == nil {
				qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				port, err := f(qctx)
				cancel()
				first.saw(port, err)
				select {
				case <-ctx.Done():
				case <-time.After(20 * time.Millisecond):
				}
			}
		})
	}
	loop(func(ctx context.Context) (port int, err error) {
		err = c.Do(ctx, func(ctx context.Context, conn *pgx.Conn) (err error) {
			port, err = write(ctx, conn, "conn")
			return err
		})
		return port, err
	}, conn)
	for range 4 {
		loop(func(ctx context.Context) (port int, err error) {
			err = p.Do(ctx, func(ctx context.Context, conn *pgxpool.Conn) (err error) {
				port, err = write(ctx, conn, "pool")
				return err
			})
			return port, err
		}, pool)
	}
	heard := make(chan time.Time, 1)
	var missed []error
	wg.Go(func() {
		for n, err := range l.Notifications(ctx) {
			if err != nil {
				missed = append(missed, err)
				continue
			}
			if n.Payload == "b" {
				heard <- time.Now()
				return
			}
		}
	})
	time.Sleep(300 * time.Millisecond) // writes on A under way
	require.Zero(t, conn.onB.Load()+pool.onB.Load(), "a write reached B before its promotion")

	began := time.Now()
	promoted.Store(&began)
	b.Promote(t)
	demoting := time.Now()
	demote(t, a, b) // its sessions see it before it returns: Stop and Fence wait for its end
	demoted := time.Now()
	wg.Go(func() { notifyUntil(ctx, t, b, "fo", "b") })

	bound := 500*time.Millisecond + 2*oneConnect + 250*time.Millisecond
	w := windows{trigger: demoting.Sub(began)}
	w.conn = conn.wait(t, demoted, bound, "conn")
	w.pool = pool.wait(t, demoted, bound, "pool")
	select {
	case at := <-heard:
		w.listener = at.Sub(began)
		assert.LessOrEqual(t, at.Sub(demoted), postgres.DefaultPingInterval+bound, "listener: first notification from B")
	case <-time.After(postgres.DefaultPingInterval + bound + 10*time.Second):
		t.Errorf("listener: no notification from B; %v", l.Status())
	}
	if w.listener > 0 && assert.Len(t, missed, 1, "one ErrMissed before B's notifications") {
		assert.ErrorIs(t, missed[0], postgres.ErrMissed)
	}
	for _, r := range []runner{c, p, l} {
		st := r.Status()
		assert.Equal(t, b.Addr(), st.Endpoint, "%s", st.Name)
		assert.Equal(t, health.Connected, st.State, "%s", st.Name)
	}

	// The Pool dials A no more, and its sessions there are gone (fenced A
	// still runs): idle ones closed, the others when released.
	before := dialsToA.Load()
	time.Sleep(time.Second)
	assert.Equal(t, before, dialsToA.Load(), "the Pool dialled A after it moved to B")
	if w := conn.errs.Load() + pool.errs.Load(); w > 0 {
		t.Logf("%d writes failed in the window (%d with 25006)", w, conn.readOnly.Load()+pool.readOnly.Load())
	}
	if aRuns(a) {
		var left int
		require.Eventually(t, func() bool {
			return admin.QueryRow(t.Context(), "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'fo-%'").Scan(&left) == nil && left == 0
		}, 5*time.Second, 20*time.Millisecond, "sessions left on A")
	} else {
		a.Follow(t, b) // A comes back as B's standby: nothing moves
		assert.True(t, a.InRecovery(t))
		for _, r := range []runner{c, p, l} {
			assert.Equal(t, b.Addr(), r.Status().Endpoint)
		}
	}
	assert.Contains(t, logs.String(), logged)
	assert.NotContains(t, logs.String(), a.Password())
	if t.Failed() {
		t.Logf("logs:\n%s", logs.String())
	}
	return w
}

// aRuns reports whether a's server answers.
func aRuns(a *pgtest.Cluster) bool {
	c, err := net.DialTimeout("tcp", a.Addr(), time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// firstSuccess records the first write that reached port after the
// promotion began, and counts the writes that failed.
type firstSuccess struct {
	port           int
	began          *atomic.Pointer[time.Time]
	onB            atomic.Int64
	errs, readOnly atomic.Int64
	mu             sync.Mutex
	at             time.Time
	done           chan struct{}
}

func firstOn(port int, began *atomic.Pointer[time.Time]) *firstSuccess {
	return &firstSuccess{port: port, began: began, done: make(chan struct{})}
}

func (f *firstSuccess) saw(port int, err error) {
	if err != nil {
		if f.began.Load() != nil {
			f.errs.Add(1)
			var pg interface{ SQLState() string }
			if errors.As(err, &pg) && pg.SQLState() == "25006" {
				f.readOnly.Add(1)
			}
		}
		return
	}
	if port != f.port {
		return
	}
	f.onB.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.at.IsZero() {
		f.at = time.Now()
		close(f.done)
	}
}

// wait returns the time from the promotion's start to the first write on
// B, which must come within bound of from.
func (f *firstSuccess) wait(t *testing.T, from time.Time, bound time.Duration, what string) time.Duration {
	t.Helper()
	select {
	case <-f.done:
	case <-time.After(bound + 10*time.Second):
		t.Errorf("%s: no write on B", what) // the others are still measured
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	assert.LessOrEqual(t, f.at.Sub(from), bound, "%s: first write on B", what)
	return f.at.Sub(*f.began.Load())
}

// notifyUntil sends NOTIFY channel, payload on c every 20ms until ctx ends.
func notifyUntil(ctx context.Context, t *testing.T, c *pgtest.Cluster, channel, payload string) {
	conn, err := pgx.Connect(ctx, c.DSN("application_name", "notifier"))
	if err != nil {
		if ctx.Err() == nil {
			t.Errorf("notifier: %v", err)
		}
		return
	}
	defer conn.Close(context.Background())
	for ctx.Err() == nil {
		_, _ = conn.Exec(ctx, "SELECT pg_notify($1, $2)", channel, payload)
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}
