package tcp_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/toxitest"
)

func callFor(t *testing.T, r *tcp.RPC, d time.Duration, method string, reply *string) error {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	return r.Call(ctx, method, "x", reply)
}

// rpc2 keeps a call until its reply arrives or the connection closes. A
// server that never answers one method, while its heartbeat stays
// healthy, must not make timed-out calls pile up: past MaxAbandoned the
// connection is recycled, and closing it releases every one.
func TestRPCAbandonedCallsRecycleTheConnection(t *testing.T) {
	rs := startRPCServer(t, true)
	r := newRPC(t, rs.addr, func(o *tcp.RPCOptions) { o.MaxAbandoned = 2 })
	ch, unsub := r.Subscribe()
	defer unsub()
	run(t, r)
	c1, err := r.Conn(ctxWait(t))
	require.NoError(t, err)
	pending := tcp.PendingOf(r, c1)

	var reply string
	for i := 1; i <= 2; i++ {
		require.ErrorIs(t, callFor(t, r, 30*time.Millisecond, "Server.Block", &reply), context.DeadlineExceeded)
		assert.Equal(t, i, pending())
		assert.Equal(t, health.Connected, r.Status().State, "within MaxAbandoned the connection stays")
	}
	require.ErrorIs(t, callFor(t, r, 30*time.Millisecond, "Server.Block", &reply), context.DeadlineExceeded)
	st := until(t, ch, "recycled", errHas("connection lost: 3 calls abandoned without a reply (MaxAbandoned 2)"))
	assert.Equal(t, health.Backoff, st.State)
	require.NoError(t, r.Call(ctxWait(t), "Server.Echo", "y", &reply))
	assert.Zero(t, pending(), "closing the connection released the abandoned calls")
	assert.Equal(t, uint64(2), r.Status().Connects)
}

// A reply that arrives after its call gave up must not write into the
// caller's variable, which the caller owns again (-race sees it too).
func TestRPCLateReplyIsDiscarded(t *testing.T) {
	rs := startRPCServer(t, true)
	r := newRPC(t, rs.addr, nil)
	run(t, r)
	c1, err := r.Conn(ctxWait(t))
	require.NoError(t, err)
	pending := tcp.PendingOf(r, c1)

	reply := "mine"
	require.ErrorIs(t, callFor(t, r, 30*time.Millisecond, "Server.Block", &reply), context.DeadlineExceeded)
	rs.unblock() // the server replies "late" now
	require.Eventually(t, func() bool { return pending() == 0 }, wait, time.Millisecond, "the late reply arrived")
	reply += " still"
	assert.Equal(t, "mine still", reply)
	assert.Equal(t, uint64(1), r.Status().Connects)
}

// Every goroutine of a connection — rpc2's read loop and a request write
// blocked on a peer that stopped reading — has ended when the supervisor
// has closed it, and so before Run returns.
func TestRPCRunReturnsAfterEveryGoroutineOfItsConnections(t *testing.T) {
	srv := startServer(t, stall)
	h := newStacksAt()
	r := newRPC(t, srv.addr, func(o *tcp.RPCOptions) {
		o.DisableHeartbeat = true
		o.Supervisor.Logger = slog.New(h)
	})
	stop := run(t, r)
	_, err := r.Conn(ctxWait(t))
	require.NoError(t, err)

	big := strings.Repeat("x", 16<<20) // more than the socket buffers hold
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	call := make(chan error, 1)
	go func() {
		var reply string
		call <- r.Call(ctx, "Server.Echo", big, &reply)
	}()
	select {
	case err := <-call:
		require.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(wait):
		require.FailNow(t, "a Call blocked in its write did not return at its deadline")
	}
	require.Contains(t, stacks(), "rpc2.(*Client).send", "the write is blocked")

	require.NoError(t, stop())
	at := h.at("stopped")
	require.Len(t, at, 1)
	assertNoConnectionGoroutines(t, at[0])
}

// A failed attempt (its first heartbeat went unanswered) is closed with
// its goroutines before the supervisor moves on.
func TestRPCFailedAttemptLeavesNothingRunning(t *testing.T) {
	proxy := toxitest.New(t, startRPCServer(t, true).addr)
	proxy.Silence(t, "silent")
	h := newStacksAt()
	r := newRPC(t, proxy.Addr(), func(o *tcp.RPCOptions) {
		o.Supervisor.ConnectTimeout = 50 * time.Millisecond
		o.Supervisor.Logger = slog.New(h)
	})
	ch, unsub := r.Subscribe()
	defer unsub()
	run(t, r)
	until(t, ch, "attempt failed", func(st health.Status) bool { return st.Attempt >= 2 })
	at := h.at("attempt failed")
	require.NotEmpty(t, at)
	assertNoConnectionGoroutines(t, at[0])
}

// assertNoConnectionGoroutines checks that no goroutine a client session
// started (its read loop, a request being written) is in stacks. The test
// servers' own rpc2 read loops are not.
func assertNoConnectionGoroutines(t *testing.T, stacks string) {
	t.Helper()
	assert.False(t, strings.Contains(stacks, "tcp.(*session)"), "a goroutine of a closed connection is running:\n%s", stacks)
}

// slowArgs blocks rpc2's request write in its encoding until release is
// closed: a request write that the closed socket cannot interrupt.
type slowArgs struct{ release chan struct{} }

func (a slowArgs) GobEncode() ([]byte, error) {
	<-a.release
	return []byte("x"), nil
}

// Close waits for a request still being written: Run returns after it.
func TestRPCRunWaitsForARequestBeingWritten(t *testing.T) {
	h := newStacksAt()
	r := newRPC(t, startRPCServer(t, true).addr, func(o *tcp.RPCOptions) {
		o.DisableHeartbeat = true
		o.Supervisor.Logger = slog.New(h)
	})
	stop := run(t, r)
	args := slowArgs{release: make(chan struct{})}
	var reply string
	ctx, cancel := context.WithTimeout(ctxWait(t), 50*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, r.Call(ctx, "Server.Echo", args, &reply), context.DeadlineExceeded)

	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	select {
	case err := <-stopped:
		t.Error("Run returned while a request of its connection was being written")
		stopped <- err
	case <-time.After(100 * time.Millisecond):
	}
	close(args.release)
	require.NoError(t, <-stopped)
	at := h.at("stopped")
	require.Len(t, at, 1)
	assertNoConnectionGoroutines(t, at[0])
}
