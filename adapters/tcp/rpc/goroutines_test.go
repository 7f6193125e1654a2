package rpc_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// Every goroutine of a connection — rpc2's read loop and a request write
// blocked on a peer that stopped reading — has ended when the supervisor
// has closed it, and so before Run returns.
func TestRPCRunReturnsAfterEveryGoroutineOfItsConnections(t *testing.T) {
	srv := testkit.StartServer(t, testkit.Stall)
	h := testkit.NewStacksAt()
	r := newRPC(t, srv.Addr, func(o *rpc.Options) {
		o.DisablePing = true
		o.Supervisor.Logger = slog.New(h)
	})
	stop := testkit.Run(t, r)
	_, err := r.Sup().Conn(testkit.CtxWait(t))
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
	case <-time.After(testkit.Wait):
		require.FailNow(t, "a Call blocked in its write did not return at its deadline")
	}
	require.Contains(t, testkit.Stacks(), "rpc2.(*Client).send", "the write is blocked")

	require.NoError(t, stop())
	at := h.At("stopped")
	require.Len(t, at, 1)
	assertNoConnectionGoroutines(t, at[0])
}

// assertNoConnectionGoroutines checks that no goroutine a client session
// started is still at work in rpc2 (its read loop, a request being
// written). One that has returned from rpc2 and only has its deferred
// WaitGroup.Done left is done; the test servers' own read loops are not
// the client's.
func assertNoConnectionGoroutines(t *testing.T, stacks string) {
	t.Helper()
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "adapters/tcp/rpc.(*session)") && strings.Contains(g, "rpc2.(*Client)") {
			t.Errorf("a goroutine of a closed connection is running:\n%s", g)
		}
	}
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
	h := testkit.NewStacksAt()
	r := newRPC(t, startRPCServer(t, true).Addr, func(o *rpc.Options) {
		o.DisablePing = true
		o.Supervisor.Logger = slog.New(h)
	})
	stop := testkit.Run(t, r)
	args := slowArgs{release: make(chan struct{})}
	var reply string
	ctx, cancel := context.WithTimeout(testkit.CtxWait(t), 50*time.Millisecond)
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
	at := h.At("stopped")
	require.Len(t, at, 1)
	assertNoConnectionGoroutines(t, at[0])
}
