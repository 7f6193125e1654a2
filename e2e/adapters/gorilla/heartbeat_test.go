package gorilla_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// A silent peer (toxiproxy timeout: nothing passes, nothing closes) is
// found within PingInterval + PingTimeout, whether the program reads or the
// adapter does (WriteOnly).
func TestHeartbeatFindsSilentPeer(t *testing.T) {
	for _, writeOnly := range []bool{false, true} {
		name := map[bool]string{false: "program reads", true: "WriteOnly"}[writeOnly]
		t.Run(name, func(t *testing.T) {
			const interval, timeout = 200 * time.Millisecond, 150 * time.Millisecond
			srv := startServer(t, nil)
			p := toxitest.New(t, srv.Addr)
			o := testOptions()
			o.PingInterval, o.PingTimeout, o.WriteOnly = interval, timeout, writeOnly
			o.Supervisor.ConnectTimeout = 300 * time.Millisecond
			c := run(t, "ws://"+p.Addr()+"/feed", o, !writeOnly)
			testkit.WaitStatus(t, c, 5*time.Second, "connection", testkit.Connected(1))

			late := testkit.MeasureLateness(t)
			p.Silence(t, "silent")
			silenced := time.Now()
			st := testkit.WaitStatus(t, c, 5*time.Second, "the heartbeat to fail", func(st health.Status) bool { return st.State != health.Connected })
			found := time.Since(silenced)
			// The ping timer, the pong's deadline, the supervisor publishing
			// the loss and this test each wake up as late as the machine
			// makes them (on two busy cores, up to 100-300ms each).
			bound := late.Bound(interval+timeout, 100*time.Millisecond, 4)
			t.Logf("silent peer found after %v (bound %v, wakes up to %v late): %v", found, bound, late.Worst(), st.Err)
			assert.ErrorIs(t, st.Err, gorilla.ErrHeartbeat)
			assert.LessOrEqual(t, found, bound, "found within PingInterval + PingTimeout")
			assert.GreaterOrEqual(t, found, timeout, "a ping waited PingTimeout")

			p.Unsilence(t, "silent")
			testkit.WaitStatus(t, c, 5*time.Second, "reconnection", testkit.Connected(2))
			require.NoError(t, c.Stop())
		})
	}
}

// A path that goes silent while the program reads a stream: the read
// deadline, which every message moved, and the heartbeat both see it
// within PingInterval + PingTimeout of the last message.
func TestSilentPathIsFoundWhileStreaming(t *testing.T) {
	const interval, timeout = 200 * time.Millisecond, 150 * time.Millisecond
	srv := startStreaming(t, nil, 10*time.Millisecond)
	p := toxitest.New(t, srv.Addr)
	o := testOptions()
	o.PingInterval, o.PingTimeout = interval, timeout
	c := run(t, "ws://"+p.Addr()+"/feed", o, true)
	testkit.WaitStatus(t, c, 5*time.Second, "connection", testkit.Connected(1))

	late := testkit.MeasureLateness(t)
	p.Silence(t, "silent")
	silenced := time.Now()
	st := testkit.WaitStatus(t, c, 5*time.Second, "the loss", func(st health.Status) bool { return st.State != health.Connected })
	found := time.Since(silenced)
	bound := late.Bound(interval+timeout, 100*time.Millisecond, 4) // as in TestHeartbeatFindsSilentPeer
	t.Logf("silent path found after %v (bound %v, wakes up to %v late): %v", found, bound, late.Worst(), st.Err)
	assert.ErrorIs(t, st.Err, gorilla.ErrHeartbeat)
	assert.LessOrEqual(t, found, bound)
	p.Unsilence(t, "silent")
	testkit.WaitStatus(t, c, 5*time.Second, "reconnection", testkit.Connected(2))
	require.NoError(t, c.Stop())
}
