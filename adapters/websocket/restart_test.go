package websocket_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/internal/toxitest"
)

func TestServerRestartResubscribes(t *testing.T) {
	srv := startServer(t, nil)
	o := testOptions(srv.url("/feed"))
	subscribeOnConnect(&o)
	c := run(t, o, true)
	testkit.WaitStatus(t, c, 5*time.Second, "first connection", connected(1))
	assert.Equal(t, "subscribe prices", srv.waitSubscribe(t, 5*time.Second))

	srv.stop() // mid-stream: the client's Read sees the connection drop
	st := testkit.WaitStatus(t, c, 5*time.Second, "the loss", func(st health.Status) bool { return st.State != health.Connected })
	t.Logf("after the stop: %s, %v", st.State, st.Err)
	srv.restart()

	testkit.WaitStatus(t, c, 5*time.Second, "second connection", connected(2))
	assert.Equal(t, "subscribe prices", srv.waitSubscribe(t, 5*time.Second))
	assert.Equal(t, []string{"subscribe prices", "subscribe prices"}, srv.subscribes())
	require.NoError(t, c.stop())
}

func TestResetPeerReconnectsAndResubscribes(t *testing.T) {
	srv := startServer(t, nil)
	p := toxitest.New(t, srv.addr)
	o := testOptions("ws://" + p.Addr() + "/feed")
	o.PingInterval = 100 * time.Millisecond // reset_peer acts when data flows: the pong
	subscribeOnConnect(&o)
	c := run(t, o, true)
	testkit.WaitStatus(t, c, 5*time.Second, "first connection", connected(1))
	srv.waitSubscribe(t, 5*time.Second)

	p.ResetPeer(t, "rst", 0)
	st := testkit.WaitStatus(t, c, 5*time.Second, "the reset", func(st health.Status) bool { return st.State != health.Connected && st.Err != nil })
	t.Logf("after reset_peer: %s, %v", st.State, st.Err)
	p.Remove(t, "rst")

	testkit.WaitStatus(t, c, 5*time.Second, "reconnection", connected(2))
	assert.Equal(t, "subscribe prices", srv.waitSubscribe(t, 5*time.Second))
	require.NoError(t, c.stop())
}
