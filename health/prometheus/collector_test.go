package prometheus_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	redialprom "github.com/redial-go/redial/health/prometheus"
	"github.com/redial-go/redial/supervisor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// link is a connector whose attempts fail while down is set; a connection
// breaks when its channel is closed.
type link struct {
	down atomic.Bool
	mu   sync.Mutex
	last chan struct{}
}

func (l *link) Connect(ctx context.Context) (chan struct{}, error) {
	if l.down.Load() {
		return nil, errors.New("connection refused")
	}
	c := make(chan struct{})
	l.mu.Lock()
	l.last = c
	l.mu.Unlock()
	return c, nil
}

func (l *link) breakLast() {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.last)
}
func (l *link) Close(chan struct{}) error { return nil }
func (l *link) Watch(ctx context.Context, c chan struct{}) error {
	select {
	case <-c:
		return errors.New("reset by peer")
	case <-ctx.Done():
		return nil
	}
}

const metricsHeader = `
# HELP redial_connect_failures_total Connection attempts that failed.
# TYPE redial_connect_failures_total counter
# HELP redial_connects_total Connections established.
# TYPE redial_connects_total counter
# HELP redial_connection_uptime_seconds Seconds the current connection has been established; 0 when down.
# TYPE redial_connection_uptime_seconds gauge
# HELP redial_next_attempt_seconds Seconds until the next connection attempt; 0 when none is planned.
# TYPE redial_next_attempt_seconds gauge
# HELP redial_up Whether the connection is established (1) or not (0).
# TYPE redial_up gauge
`

func expect(up, connects, failures int, uptime, next float64) string {
	r := strings.NewReplacer("UP", itoa(up), "CONNECTS", itoa(connects), "FAILURES", itoa(failures))
	return metricsHeader + r.Replace(`
redial_connect_failures_total{name="db"} FAILURES
redial_connects_total{name="db"} CONNECTS
redial_up{name="db"} UP
`) + "redial_connection_uptime_seconds{name=\"db\"} " + ftoa(uptime) + "\n" +
		"redial_next_attempt_seconds{name=\"db\"} " + ftoa(next) + "\n"
}

func TestCollectorFollowsASupervisor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &link{}
		s, err := supervisor.New[chan struct{}](l, supervisor.Options[chan struct{}]{
			Settings: supervisor.Settings{
				Name:    "db",
				Backoff: backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: time.Minute},
			},
		})
		require.NoError(t, err)
		var reg health.Registry
		reg.Add("db", s, health.SourceOptions{Critical: true})
		c, err := redialprom.New(&reg)
		require.NoError(t, err)
		names := []string{"redial_up", "redial_connects_total", "redial_connect_failures_total", "redial_connection_uptime_seconds", "redial_next_attempt_seconds"}
		compare := func(want string) {
			t.Helper()
			synctest.Wait()
			assert.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want), names...))
		}

		compare(expect(0, 0, 0, 0, 0)) // idle
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		time.Sleep(5 * time.Second)
		compare(expect(1, 1, 0, 5, 0))

		l.down.Store(true)
		l.breakLast() // flapping loss after 5s: waits 1s
		synctest.Wait()
		time.Sleep(250 * time.Millisecond)
		compare(expect(0, 1, 0, 0, 0.75))
		time.Sleep(750 * time.Millisecond) // the retry fails: waits 2s
		compare(expect(0, 1, 1, 0, 2))

		l.down.Store(false)
		time.Sleep(2 * time.Second)
		compare(expect(1, 2, 1, 0, 0))

		problems, err := testutil.CollectAndLint(c)
		require.NoError(t, err)
		assert.Empty(t, problems, "metric names and help follow Prometheus conventions")
		assert.Equal(t, 10+6, testutil.CollectAndCount(c), "ten series and one per state")
		assert.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(`
# HELP redial_longest_outage_seconds Longest time without a connection after a loss, the current outage included.
# TYPE redial_longest_outage_seconds gauge
redial_longest_outage_seconds{name="db"} 3
# HELP redial_reconnects_last_minute Connections re-established after a loss or a replacement in the last minute.
# TYPE redial_reconnects_last_minute gauge
redial_reconnects_last_minute{name="db"} 1
`), "redial_longest_outage_seconds", "redial_reconnects_last_minute"))

		cancel()
		require.NoError(t, <-done)
	})
}

func TestStateSeriesOnePerState(t *testing.T) {
	var reg health.Registry
	reg.Add("cache", health.SourceFunc(func() health.Status { return health.Status{State: health.Backoff} }), health.SourceOptions{})
	c, err := redialprom.New(&reg)
	require.NoError(t, err)
	want := `
# HELP redial_state The connection's lifecycle state: 1 for the current state, 0 for the others.
# TYPE redial_state gauge
redial_state{name="cache",state="backoff"} 1
redial_state{name="cache",state="connected"} 0
redial_state{name="cache",state="connecting"} 0
redial_state{name="cache",state="failed"} 0
redial_state{name="cache",state="idle"} 0
redial_state{name="cache",state="stopped"} 0
`
	assert.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want), "redial_state"))
}

func TestNewRejectsNilRegistry(t *testing.T) {
	_, err := redialprom.New(nil)
	assert.EqualError(t, err, "prometheus: registry: nil")
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
}

// TestLagSeries: a feed whose program is behind exports how many items wait
// and the oldest's age.
func TestLagSeries(t *testing.T) {
	var reg health.Registry
	reg.Add("feed", lagSource{}, health.SourceOptions{Critical: true})
	c, err := redialprom.New(&reg)
	require.NoError(t, err)
	want := `
# HELP redial_lag_oldest_seconds Seconds the oldest item not yet taken by the program has waited; 0 when none.
# TYPE redial_lag_oldest_seconds gauge
redial_lag_oldest_seconds{name="feed"} 183.5
# HELP redial_lag_waiting Items the source received that the program has not taken yet.
# TYPE redial_lag_waiting gauge
redial_lag_waiting{name="feed"} 3677
`
	assert.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want), "redial_lag_waiting", "redial_lag_oldest_seconds"))
	problems, err := testutil.CollectAndLint(c)
	require.NoError(t, err)
	assert.Empty(t, problems)
}

// lagSource is a Connected LagSource whose program is 3677 items behind.
type lagSource struct{}

func (lagSource) Status() health.Status { return health.Status{State: health.Connected} }
func (lagSource) Lag() health.Lag {
	return health.Lag{Waiting: 3677, Oldest: 183500 * time.Millisecond}
}

// TestNameNotUTF8: a source whose Name is not valid UTF-8 is exported with
// U+FFFD for the bad bytes; before, Collect panicked and the scrape lost
// every source.
func TestNameNotUTF8(t *testing.T) {
	var reg health.Registry
	up := health.SourceFunc(func() health.Status { return health.Status{State: health.Connected} })
	reg.Add("db\xff\xfe", up, health.SourceOptions{Critical: true})
	reg.Add("cache", up, health.SourceOptions{})
	c, err := redialprom.New(&reg)
	require.NoError(t, err)
	ch := make(chan prometheus.Metric, 100)
	require.NotPanics(t, func() { c.Collect(ch) })
	assert.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(`
# HELP redial_up Whether the connection is established (1) or not (0).
# TYPE redial_up gauge
redial_up{name="cache"} 1
redial_up{name="db`+"\uFFFD"+`"} 1
`), "redial_up"))
}
