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
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// healBackoff is the one setting these tests do not leave at its default:
// with the default Cap of a minute, "within one backoff delay" would be a
// minute of test.
var healBackoff = backoff.Config{Base: 100 * time.Millisecond, Cap: 2 * time.Second}

// attemptTimeout is how long an attempt of each kind may last by default
// on a path that died: the Pool's ping and the Listener's connect are
// bounded by PingTimeout, the Conn's by the supervisor's ConnectTimeout.
var attemptTimeout = map[string]time.Duration{
	"pool":     postgres.DefaultPingTimeout,
	"listener": postgres.DefaultPingTimeout,
	"conn":     supervisor.DefaultConnectTimeout,
}

// queryTimeout bounds each query of the load.
const queryTimeout = 2 * time.Second

// outage is how long the path stays broken: longer than the slowest
// default detection (a Pool's PingInterval 5s + 2 PingTimeouts of 3s), and
// than pgconn's 15s cleanup of a connection it closed, so that dials made
// after those cleanups are caught in the outage too.
const outage = 24 * time.Second

// TestEveryKindIsHealthyWithinOneBackoffOfAHeal breaks the path between
// the program and the server for 24s, with queries running through the
// Pool's Do and the Conn's Do all along, then heals it. Every kind must
// have found the outage, and be Connected again, with queries working,
// soon after the heal: within one backoff delay (Cap) when the path
// delivers what it held (toxitest.Stall), and within one attempt's
// timeout more when the connections of the outage stay dead for good (a
// dropped NAT entry: the attempt under way at the heal is stuck until its
// timeout, the Pool's and the Listener's 3s, the Conn's 10s). The Pool
// must find the outage even when its queries hold every connection: their
// callers' deadlines are no connection loss, but once they gave up, the
// Pool pings at once, through the connections they freed (within a
// second: their cleanup is cut short), and finds the path dead within two
// ping timeouts (three when a ping was under way). Pool dials (pgxpool's 2
// minutes by default), cancel requests and pgconn's 15s cleanups must not
// outlive the outage, and dead connections must not hold the pool's slots
// (pool_max_conns=1 is the hard case). Everything but the backoff is the
// default.
func TestEveryKindIsHealthyWithinOneBackoffOfAHeal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dead     bool // connections of the outage stay dead after the heal
		maxConns string
	}{
		{"stall", false, ""},
		{"stall/pool_max_conns=1", false, "1"},
		{"dead path", true, ""},
		{"dead path/pool_max_conns=1", true, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			proxy := toxitest.New(t, shared.Addr())
			kill, heal := func() {
				proxy.Stall(t, "up", "upstream")
				proxy.Stall(t, "down", "downstream")
			}, func() {
				proxy.Remove(t, "up")
				proxy.Remove(t, "down")
			}
			if tc.dead {
				path := newDeadPath(t, proxy)
				kill, heal = path.Kill, path.Heal
			}
			h := newHealSubjects(t, shared.DSNVia(proxy.Addr(), "application_name", "heal"), tc.maxConns)
			h.load(t)

			kill()
			killed := time.Now()
			for name, tl := range h.timelines {
				st := tl.wait(t, outage, killed, func(st health.Status) bool { return st.State != health.Connected })
				found := st.Since.Sub(killed)
				t.Logf("%s found it after %v: %v", name, found.Round(time.Millisecond), st.Err)
				if name == "pool" { // every connection busy or not, the pings after the callers gave up tell
					// A ping under way when the callers gave up may take its timeout first.
					bound := queryTimeout + time.Second + 3*postgres.DefaultPingTimeout + time.Second
					assert.LessOrEqual(t, found, bound, "the pool's readiness did not follow its queries' callers giving up")
				}
			}
			hold := time.NewTimer(time.Until(killed.Add(outage))) // the outage lasts this long
			login := measureConnect(t, shared.DSN())              // this machine's login now, while the outage lasts
			<-hold.C
			heal()
			healed := h.healed()
			for name, tl := range h.timelines {
				bound := healBackoff.Cap + login // the attempt after the backoff, its login measured
				if tc.dead || name == "pool" {
					// The attempt under way at the heal is stuck that long on a
					// dead path; a Pool's may be a ping on a connection the
					// outage left closing (6.2s after a stall's heal, under
					// load, against Cap + 1s).
					bound += attemptTimeout[name]
				}
				st := tl.wait(t, bound+10*time.Second, healed, testkit.InState(health.Connected))
				took := st.Since.Sub(healed)
				t.Logf("%s Connected %v after the heal", name, took.Round(time.Millisecond))
				assert.LessOrEqual(t, took, bound, "%s: healthy again %v after the heal", name, took)
			}
			for name, worked := range h.worked {
				select {
				case <-worked:
				case <-time.After(10 * time.Second):
					t.Errorf("%s: no query worked within 10s of the heal", name)
				}
			}
			for name, at := range h.stop() {
				t.Logf("%s: the first query that worked after the heal did %v after it", name, at.Sub(healed).Round(time.Millisecond))
			}
			for name, q := range h.queries {
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
				assert.NoError(t, q(ctx), "%s: a query after the heal", name)
				cancel()
			}
		})
	}
}

// healSubjects are a Pool, a Listener and a Conn on one DSN, with the
// timelines of their health and a query each (the Pool's and the Conn's).
type healSubjects struct {
	timelines map[string]*timeline
	queries   map[string]func(context.Context) error

	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	heal   time.Time                // when the path healed; zero before
	first  map[string]time.Time     // the first query that worked after it, per subject
	worked map[string]chan struct{} // closed then
}

func newHealSubjects(t *testing.T, dsn, maxConns string) *healSubjects {
	t.Helper()
	o := supervisor.Settings{Backoff: healBackoff}
	poolDSN := dsn
	if maxConns != "" {
		poolDSN += "&pool_max_conns=" + maxConns
	}
	p, err := postgres.NewPool(poolDSN, postgres.PoolOptions{Supervisor: o})
	require.NoError(t, err)
	l, err := postgres.NewListener(dsn, postgres.ListenerOptions{Channels: []string{"heal"}, Supervisor: o})
	require.NoError(t, err)
	c, err := postgres.NewConn(dsn, postgres.ConnOptions{Supervisor: supervisor.Settings{Backoff: healBackoff}})
	require.NoError(t, err)
	h := &healSubjects{timelines: map[string]*timeline{}, first: map[string]time.Time{},
		worked: map[string]chan struct{}{"pool": make(chan struct{}), "conn": make(chan struct{})}}
	h.queries = map[string]func(context.Context) error{
		"pool": func(ctx context.Context) error {
			return p.Do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error { _, err := conn.Exec(ctx, "SELECT 1"); return err })
		},
		"conn": func(ctx context.Context) error {
			return c.Do(ctx, func(ctx context.Context, conn *pgx.Conn) error { _, err := conn.Exec(ctx, "SELECT 1"); return err })
		},
	}
	for name, r := range map[string]runner{"pool": p, "listener": l, "conn": c} {
		testkit.Run(t, r)
		h.timelines[name] = record(t, r)
		h.timelines[name].wait(t, 10*time.Second, time.Time{}, testkit.InState(health.Connected))
	}
	return h
}

// load runs queries through the Pool (four at a time) and the Conn, each
// bounded by 2s, until stop: the program's traffic across the outage.
// Stopping lets the queries under way finish: one cut short would cost
// the Conn its connection.
func (h *healSubjects) load(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	t.Cleanup(func() { h.stop() })
	for _, name := range []string{"pool", "pool", "pool", "pool", "conn"} {
		q := h.queries[name]
		h.wg.Go(func() {
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for ctx.Err() == nil {
				qctx, qcancel := context.WithTimeout(context.Background(), queryTimeout)
				if err := q(qctx); err == nil {
					h.mu.Lock()
					if !h.heal.IsZero() && h.first[name].IsZero() {
						h.first[name] = time.Now()
						close(h.worked[name])
					}
					h.mu.Unlock()
				}
				qcancel()
				select {
				case <-ctx.Done():
				case <-tick.C:
				}
			}
		})
	}
}

// healed notes that the path healed now, and returns now.
func (h *healSubjects) healed() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.heal = time.Now()
	return h.heal
}

// stop ends the load and returns when the first query of each subject
// worked after the heal.
func (h *healSubjects) stop() map[string]time.Time {
	h.cancel()
	h.wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.first
}
