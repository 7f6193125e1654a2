package rpc_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

func TestRPCResetPeer(t *testing.T) {
	proxy := toxitest.New(t, startRPCServer(t))
	r := newRPC(t, proxy.Addr(), nil)
	ch, unsub := r.Subscribe()
	defer unsub()
	run(t, r)
	testkit.Until(t, ch, testkit.Wait, "connected", testkit.InState(health.Connected))

	// The next ping's reply triggers it. toxiproxy closes the
	// established connection (EOF, mostly) and resets every new one in
	// the attempt's first ping.
	proxy.ResetPeer(t, "rst", 0)
	st := testkit.Until(t, ch, testkit.Wait, "reset", func(st health.Status) bool {
		return st.State == health.Backoff && testkit.ErrHas("connection reset by peer")(st)
	})
	assert.Equal(t, uint64(1), st.Connects)
	t.Logf("%v", st.Err)
	proxy.Remove(t, "rst")
	var reply string
	require.NoError(t, r.Call(testkit.CtxWait(t), "Server.CallBack", "again", &reply))
	assert.Equal(t, "hello again", reply)
}

func TestRPCSilentPeerIsFoundByPing(t *testing.T) {
	const interval, timeout = 100 * time.Millisecond, 100 * time.Millisecond
	proxy := toxitest.New(t, startRPCServer(t))
	r := newRPC(t, proxy.Addr(), func(o *rpc.Options) {
		o.PingInterval, o.PingTimeout = interval, timeout
		o.Supervisor.ConnectTimeout = 200 * time.Millisecond
	})
	ch, unsub := r.Subscribe()
	defer unsub()
	run(t, r)
	testkit.Until(t, ch, testkit.Wait, "connected", testkit.InState(health.Connected))

	silenced := time.Now()
	proxy.Silence(t, "silent")
	call := make(chan error, 1)
	go func() {
		var reply string
		call <- r.Call(testkit.CtxWait(t), "Server.Echo", "lost in silence", &reply)
	}()
	st := testkit.Until(t, ch, testkit.Wait, "ping failed", testkit.ErrHas("connection lost", "ping", "no reply within 100ms"))
	took := st.Since.Sub(silenced)
	t.Logf("silent peer found after %v: %v", took, st.Err)
	assert.Less(t, took, interval+timeout+testkit.Slack)
	assert.ErrorIs(t, st.Err, supervisor.ErrSilent)

	err := <-call
	require.Error(t, err, "a call sent into the silence ends with the connection")
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "it did not wait for its own deadline")
	t.Logf("the call sent into the silence: %v", err)

	st = testkit.Until(t, ch, testkit.Wait, "attempt failed", testkit.ErrHas("connect: timed out after 200ms", "ping"))
	assert.Equal(t, health.Backoff, st.State, "a silent server fails the attempt's first ping")
	proxy.Unsilence(t, "silent")
	var reply string
	require.NoError(t, r.Call(testkit.CtxWait(t), "Server.CallBack", "back", &reply))
	assert.Equal(t, "hello back", reply)
}

func TestRPCLatencyLongerThanConnectTimeout(t *testing.T) {
	const connectTimeout = 100 * time.Millisecond
	proxy := toxitest.New(t, startRPCServer(t))
	proxy.Latency(t, "slow", 300*time.Millisecond)
	r := newRPC(t, proxy.Addr(), func(o *rpc.Options) { o.Supervisor.ConnectTimeout = connectTimeout })
	ch, unsub := r.Subscribe()
	defer unsub()
	start := time.Now()
	run(t, r)
	st := testkit.Until(t, ch, testkit.Wait, "attempt failed", testkit.InState(health.Backoff))
	took := st.Since.Sub(start)
	t.Logf("attempt: %v (%v)", took, st.Err)
	assert.ErrorContains(t, st.Err, "connect: timed out after 100ms: ping")
	assert.GreaterOrEqual(t, took, connectTimeout)
	assert.Less(t, took, connectTimeout+testkit.Slack)

	proxy.Remove(t, "slow-up")
	proxy.Remove(t, "slow-down")
	var reply string
	require.NoError(t, r.Call(testkit.CtxWait(t), "Server.Echo", "fast", &reply))
}

// A failed attempt (its first ping went unanswered) is closed with
// its goroutines before the supervisor moves on.
func TestRPCFailedAttemptLeavesNothingRunning(t *testing.T) {
	proxy := toxitest.New(t, startRPCServer(t))
	proxy.Silence(t, "silent")
	h := testkit.NewStacksAt()
	r := newRPC(t, proxy.Addr(), func(o *rpc.Options) {
		o.Supervisor.ConnectTimeout = 50 * time.Millisecond
		o.Supervisor.Logger = slog.New(h)
	})
	ch, unsub := r.Subscribe()
	defer unsub()
	run(t, r)
	testkit.Until(t, ch, testkit.Wait, "attempt failed", func(st health.Status) bool { return st.ConsecutiveFailures >= 2 })
	at := h.At("attempt failed")
	require.NotEmpty(t, at)
	assertNoConnectionGoroutines(t, at[0])
}
