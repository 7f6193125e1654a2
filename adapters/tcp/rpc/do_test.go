package rpc_test

import (
	"context"
	"testing"

	"github.com/cenkalti/rpc2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// Do on a Client: a server's error answer is returned and keeps the
// connection; a broken client is invalidated and the next Do gets a new one.
func TestRPCDo(t *testing.T) {
	r := newRPC(t, startRPCServer(t, true).Addr, nil)
	ch, unsub := r.Subscribe()
	defer unsub()
	testkit.Run(t, r)
	ctx := testkit.CtxWait(t)

	var first *rpc2.Client
	err := r.Sup().Do(ctx, func(ctx context.Context, c *rpc2.Client) error {
		first = c
		var reply string
		return c.CallWithContext(ctx, "Server.Fail", "no such job", &reply)
	})
	var se rpc2.ServerError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "no such job", string(se))

	err = r.Sup().Do(ctx, func(ctx context.Context, c *rpc2.Client) error {
		assert.Same(t, first, c, "a server's answer did not break the connection")
		require.NoError(t, c.Close())
		var reply string
		return c.CallWithContext(ctx, "Server.Echo", "x", &reply)
	})
	require.ErrorIs(t, err, rpc2.ErrShutdown)
	testkit.Until(t, ch, testkit.Wait, "reconnected", func(st health.Status) bool { return st.Connects == 2 && st.State == health.Connected })

	var reply string
	require.NoError(t, r.Sup().Do(ctx, func(ctx context.Context, c *rpc2.Client) error {
		assert.NotSame(t, first, c, "a new client")
		return c.CallWithContext(ctx, "Server.Echo", "y", &reply)
	}))
	assert.Equal(t, "y", reply)
}
