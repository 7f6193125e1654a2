package rpc_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

func callFor(t *testing.T, r *rpc.Client, d time.Duration, method string, reply *string) error {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	return r.Call(ctx, method, "x", reply)
}

// rpc2 keeps a call until its reply arrives or the connection closes. A
// server that never answers one method, while its pings stay
// healthy, must not make timed-out calls pile up: past MaxAbandoned the
// connection is recycled, and closing it releases every one.
func TestRPCAbandonedCallsRecycleTheConnection(t *testing.T) {
	rs := startRPCServer(t, true)
	r := newRPC(t, rs.Addr, func(o *rpc.Options) { o.MaxAbandoned = 2 })
	ch, unsub := r.Subscribe()
	defer unsub()
	testkit.Run(t, r)
	c1, err := r.Sup().Conn(testkit.CtxWait(t))
	require.NoError(t, err)
	pending := rpc.PendingOf(r, c1)

	var reply string
	for i := 1; i <= 2; i++ {
		require.ErrorIs(t, callFor(t, r, 30*time.Millisecond, "Server.Block", &reply), context.DeadlineExceeded)
		assert.Equal(t, i, pending())
		assert.Equal(t, health.Connected, r.Status().State, "within MaxAbandoned the connection stays")
	}
	require.ErrorIs(t, callFor(t, r, 30*time.Millisecond, "Server.Block", &reply), context.DeadlineExceeded)
	st := testkit.Until(t, ch, testkit.Wait, "recycled", testkit.ErrHas("connection lost: 3 calls abandoned without a reply (MaxAbandoned 2)"))
	assert.Equal(t, health.Backoff, st.State)
	require.NoError(t, r.Call(testkit.CtxWait(t), "Server.Echo", "y", &reply))
	assert.Zero(t, pending(), "closing the connection released the abandoned calls")
	assert.Equal(t, uint64(2), r.Status().Connects)
}

// A reply that arrives after its call gave up must not write into the
// caller's variable, which the caller owns again (-race sees it too).
func TestRPCLateReplyIsDiscarded(t *testing.T) {
	rs := startRPCServer(t, true)
	r := newRPC(t, rs.Addr, nil)
	testkit.Run(t, r)
	c1, err := r.Sup().Conn(testkit.CtxWait(t))
	require.NoError(t, err)
	pending := rpc.PendingOf(r, c1)

	reply := "mine"
	require.ErrorIs(t, callFor(t, r, 30*time.Millisecond, "Server.Block", &reply), context.DeadlineExceeded)
	rs.unblock() // the server replies "late" now
	require.Eventually(t, func() bool { return pending() == 0 }, testkit.Wait, time.Millisecond, "the late reply arrived")
	reply += " still"
	assert.Equal(t, "mine still", reply)
	assert.Equal(t, uint64(1), r.Status().Connects)
}
