package rpc_test

import (
	"context"
	"testing"
	"time"

	"github.com/cenkalti/rpc2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

func TestRPCServerRestartCallbacksWorkOnNewConnection(t *testing.T) {
	rs := startRPCServer(t, true)
	r := newRPC(t, rs.Addr, nil)
	ch, unsub := r.Subscribe()
	defer unsub()
	testkit.Run(t, r)
	ctx := testkit.CtxWait(t)
	var reply string
	require.NoError(t, r.Call(ctx, "Server.CallBack", "one", &reply))
	assert.Equal(t, "hello one", reply, "the server called the client's handler")
	c1, err := r.Sup().Conn(ctx)
	require.NoError(t, err)

	rs.Stop()
	testkit.Until(t, ch, testkit.Wait, "lost", testkit.ErrHas("connection lost", "rpc2 connection closed"))
	testkit.Until(t, ch, testkit.Wait, "refused", testkit.ErrHas("connection refused"))
	rs.Restart()
	require.NoError(t, r.Call(ctx, "Server.CallBack", "two", &reply), "Call waits for the new connection")
	assert.Equal(t, "hello two", reply, "the handlers were registered on the new client")
	c2, err := r.Sup().Conn(ctx)
	require.NoError(t, err)
	assert.NotSame(t, c1, c2)
	assert.Equal(t, uint64(2), r.Status().Connects)
}

func TestRPCOverTLS(t *testing.T) {
	serverTLS, clientTLS := testkit.SelfSigned(t)
	rs := startRPCServerTLS(t, true, serverTLS)
	r := newRPC(t, rs.Addr, func(o *rpc.Options) { o.TLS = clientTLS })
	ch, unsub := r.Subscribe()
	defer unsub()
	testkit.Run(t, r)
	ctx := testkit.CtxWait(t)
	var reply string
	require.NoError(t, r.Call(ctx, "Server.CallBack", "tls", &reply))
	assert.Equal(t, "hello tls", reply)
	rs.Stop()
	testkit.Until(t, ch, testkit.Wait, "lost", testkit.ErrHas("connection lost"))
	rs.Restart()
	require.NoError(t, r.Call(ctx, "Server.CallBack", "tls again", &reply))
	assert.Equal(t, "hello tls again", reply)
}

func TestRPCCallWhileDisconnectedWaitsBoundedByItsContext(t *testing.T) {
	rs := startRPCServer(t, true)
	r := newRPC(t, rs.Addr, nil)
	ch, unsub := r.Subscribe()
	defer unsub()
	testkit.Run(t, r)
	rs.Stop()
	testkit.Until(t, ch, testkit.Wait, "refused", testkit.ErrHas("connection refused"))

	short, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	var reply string
	err := r.Call(short, "Server.Echo", "x", &reply)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "connection refused", "the error says why there is no connection")

	done := make(chan error, 1)
	go func() { done <- r.Call(testkit.CtxWait(t), "Server.Echo", "y", &reply) }()
	rs.Restart()
	require.NoError(t, <-done)
	assert.Equal(t, "y", reply)
}

// A client rpc2 already shut down (the program closed it) is still the
// supervisor's live connection for a moment: a call that never left is
// made again on the next connection instead of failing.
func TestRPCCallOnADeadClientGoesToTheNext(t *testing.T) {
	rs := startRPCServer(t, true)
	r := newRPC(t, rs.Addr, nil)
	testkit.Run(t, r)
	ctx := testkit.CtxWait(t)
	for i := range 10 {
		c, err := r.Sup().Conn(ctx)
		require.NoError(t, err)
		require.NoError(t, c.Close())
		var reply string
		require.NoError(t, r.Call(ctx, "Server.Echo", "x", &reply), "call %d", i)
		assert.Equal(t, "x", reply)
	}
	assert.Equal(t, uint64(11), r.Status().Connects)
}

func TestRPCCallChecksItsArguments(t *testing.T) {
	r := newRPC(t, startRPCServer(t, true).Addr, nil)
	testkit.Run(t, r)
	ctx := testkit.CtxWait(t)
	var reply string
	var nilArgs *string
	assert.ErrorContains(t, r.Call(ctx, "Server.Echo", nil, &reply), "nil args")
	assert.ErrorContains(t, r.Call(ctx, "Server.Echo", nilArgs, &reply), "nil args pointer *string")
	assert.ErrorContains(t, r.Call(ctx, "Server.Echo", "x", reply), "reply must be a non-nil pointer, got string")
	assert.ErrorContains(t, r.Call(ctx, "Server.Echo", "x", nil), "reply must be a non-nil pointer")
	require.NoError(t, r.Call(ctx, "Server.Echo", "x", &reply))
	assert.Equal(t, uint64(1), r.Status().Connects, "bad arguments did not break the connection")

	// rpc2's server answers an unknown method without reading its
	// arguments, loses track of the stream and hangs up: the error is the
	// server's answer all the same.
	var se rpc2.ServerError
	require.ErrorAs(t, r.Call(ctx, "Server.Missing", "x", &reply), &se)
}

// OnConnect runs on every new connection before it counts as Connected;
// CallClient calls on that connection (Call would wait for it).
func TestRPCOnConnectCallsTheNewClient(t *testing.T) {
	rs := startRPCServer(t, true)
	var r *rpc.Client
	var greetings []string // written by OnConnect, on Run's goroutine
	var last *rpc2.Client
	r = newRPC(t, rs.Addr, func(o *rpc.Options) {
		o.OnConnect = func(ctx context.Context, c *rpc2.Client) error {
			var reply string
			if err := r.CallClient(ctx, c, "Server.CallBack", "on connect", &reply); err != nil {
				return err
			}
			greetings, last = append(greetings, reply), c
			return nil
		}
	})
	ch, unsub := r.Subscribe()
	defer unsub()
	stop := testkit.Run(t, r)
	testkit.Until(t, ch, testkit.Wait, "connected", testkit.InState(health.Connected))
	rs.Stop()
	testkit.Until(t, ch, testkit.Wait, "lost", testkit.ErrHas("connection lost"))
	rs.Restart()
	testkit.Until(t, ch, testkit.Wait, "connected again", func(st health.Status) bool { return st.State == health.Connected && st.Connects == 2 })
	require.NoError(t, stop())
	assert.Equal(t, []string{"hello on connect", "hello on connect"}, greetings)

	assert.ErrorIs(t, r.CallClient(t.Context(), last, "Server.Echo", "x", new(string)), rpc2.ErrShutdown,
		"a closed client is not called")
}
