package rpc_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cenkalti/rpc2"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// startRPCServer serves rpc2 on 127.0.0.1 until the test ends, with
// rpc.HandlePing, Server.Echo(s) = s and Server.CallBack(name),
// which returns the client's Client.Hello(name).
func startRPCServer(t *testing.T) string {
	srv := rpc2.NewServer()
	rpc.HandlePing(srv)
	srv.Handle("Server.Echo", func(_ *rpc2.Client, s string, reply *string) error {
		*reply = s
		return nil
	})
	srv.Handle("Server.CallBack", func(c *rpc2.Client, name string, reply *string) error {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Wait)
		defer cancel()
		return c.CallWithContext(ctx, "Client.Hello", name, reply)
	})
	return testkit.Serve(t, func(c net.Conn) { srv.ServeConn(c) })
}

// hello is the client's handler the server calls back.
func hello(_ *rpc2.Client, name string, reply *string) error {
	*reply = "hello " + name
	return nil
}

// newRPC returns a Client with short pings and backoff; change
// adjusts the options first.
func newRPC(t *testing.T, addr string, change func(*rpc.Options)) *rpc.Client {
	t.Helper()
	o := rpc.Options{
		Handlers:     map[string]any{"Client.Hello": hello},
		PingInterval: 100 * time.Millisecond,
		PingTimeout:  100 * time.Millisecond,
		Supervisor: supervisor.Settings{
			Name:    "rpc",
			Backoff: backoff.Config{Strategy: backoff.Exponential, Base: 20 * time.Millisecond, Cap: 100 * time.Millisecond},
		},
	}
	if change != nil {
		change(&o)
	}
	r, err := rpc.New(addr, o)
	require.NoError(t, err)
	return r
}

// run starts r.Run until the test ends.
func run(t *testing.T, r *rpc.Client) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-r.Done() })
}

// assertNoConnectionGoroutines checks that no goroutine a client session
// started is still at work in rpc2 (its read loop, a request being
// written); the test servers' own read loops are not the client's.
func assertNoConnectionGoroutines(t *testing.T, stacks string) {
	t.Helper()
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "adapters/tcp/rpc.(*session)") && strings.Contains(g, "rpc2.(*Client)") {
			t.Errorf("a goroutine of a closed connection is running:\n%s", g)
		}
	}
}
