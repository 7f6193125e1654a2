package postgres_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// TestListenerHeartbeatFindsASilentPath stalls the path to the server (no
// data, no close): an idle Listener only reads, so only its ping can tell.
// It must leave Connected within PingInterval + PingTimeout, and after the
// path is back, reconnect and say that notifications may have been missed
// (ErrMissed, with why the connection was lost).
func TestListenerHeartbeatFindsASilentPath(t *testing.T) {
	proxy := toxitest.New(t, shared.Addr())
	dsn := shared.DSNVia(proxy.Addr(), "application_name", "listener-heartbeat")
	const interval, timeout = 300 * time.Millisecond, 300 * time.Millisecond
	l := newListener(t, dsn, postgres.ListenerOptions{
		Channels:     []string{"hb"},
		PingInterval: interval,
		PingTimeout:  timeout,
	})
	testkit.Run(t, l)
	testkit.WaitStatus(t, l, 10*time.Second, "connected", testkit.InState(health.Connected))
	time.Sleep(2 * interval) // the measurement: idle pings pass on a healthy path
	require.Equal(t, health.Connected, l.Status().State, "a healthy idle Listener stays connected: %v", l.Status().Err)

	proxy.Stall(t, "silent", "downstream")
	stalled := time.Now()
	st := testkit.WaitStatus(t, l, 5*time.Second, "the silence found", func(st health.Status) bool { return st.State != health.Connected })
	found := time.Since(stalled)
	assert.LessOrEqual(t, found, interval+timeout+500*time.Millisecond, "found after %v", found)
	assert.ErrorIs(t, st.Err, supervisor.ErrSilent)
	t.Logf("silent path found after %v (interval %v + timeout %v)", found.Round(time.Millisecond), interval, timeout)

	proxy.Remove(t, "silent")
	n, err := next(t, l, 10*time.Second)
	assert.ErrorIs(t, err, postgres.ErrMissed, "after the reconnect, the program hears that it may have missed notifications")
	assert.ErrorIs(t, err, supervisor.ErrSilent, "and why the connection was lost")
	assert.Zero(t, n)
}
