package bench

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// rpcServer serves rpc2 on loopback: the adapter's heartbeat and
// Server.Echo, which answers its 256-byte argument.
func rpcServer(tb testing.TB) string {
	srv := rpc2.NewServer()
	rpc.HandlePing(srv)
	srv.Handle("Server.Echo", func(_ *rpc2.Client, s []byte, reply *[]byte) error {
		*reply = s
		return nil
	})
	return testkit.Serve(tb, func(c net.Conn) { srv.ServeConn(c) })
}

// BenchmarkRPCCalls makes one call and waits for its reply, a 256-byte
// argument echoed: raw is rpc2's CallWithContext on a client over a
// net.Conn from net.Dial; redial is Call of an rpc.New client (its
// defaults: heartbeat, bounded calls, no re-send of a call that may have
// left). The ctx is cancellable in both. One op is one call.
func BenchmarkRPCCalls(b *testing.B) {
	addr := rpcServer(b)
	arg := make([]byte, msgSize)
	b.Run("raw", func(b *testing.B) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		client := rpc2.NewClient(conn)
		done := make(chan struct{})
		go func() { defer close(done); client.Run() }()
		defer func() { client.Close(); <-done }()
		ctx := run(b, func(ctxDone context.Context) error { <-ctxDone.Done(); return nil })
		b.ReportAllocs()
		for b.Loop() {
			var reply []byte
			if err := client.CallWithContext(ctx, "Server.Echo", arg, &reply); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("redial", func(b *testing.B) {
		c, err := rpc.New(addr, rpc.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := run(b, c.Run)
		testkit.WaitStatus(b, c, 30*time.Second, "connected", testkit.InState(health.Connected))
		b.ReportAllocs()
		for b.Loop() {
			var reply []byte
			if err := c.Call(ctx, "Server.Echo", arg, &reply); err != nil {
				b.Fatal(err)
			}
		}
	})
}
