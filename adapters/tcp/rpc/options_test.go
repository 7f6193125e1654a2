package rpc_test

import (
	"net"
	"testing"
	"time"

	"github.com/cenkalti/rpc2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

type Args struct{ N int }
type unexported struct{ N int }

func TestNewRejectsBadOptions(t *testing.T) {
	var nilFunc func(*rpc2.Client, Args, *int) error
	handler := func(h any) rpc.Options { return rpc.Options{Handlers: map[string]any{"M": h}} }
	for _, tc := range []struct {
		address string
		o       rpc.Options
		want    string
	}{
		{"", rpc.Options{}, "rpc: address: empty"},
		{"localhost", rpc.Options{}, `rpc: address "localhost": missing port in address`},
		{"h:1", rpc.Options{UserTimeout: -time.Second}, "rpc: UserTimeout -1s: negative"},
		{"h:1", rpc.Options{KeepAlive: net.KeepAliveConfig{Enable: true, Idle: -time.Second}}, "rpc: KeepAlive.Idle -1s: negative"},
		{"h:1", rpc.Options{KeepAlive: net.KeepAliveConfig{Enable: true, Count: -1}}, "rpc: KeepAlive.Count -1: negative"},
		{"h:1", rpc.Options{KeepAlive: net.KeepAliveConfig{Idle: time.Second}}, "rpc: KeepAlive: Idle, Interval or Count set without Enable"},
		{"h:1", rpc.Options{KeepAlive: net.KeepAliveConfig{Enable: true}, DisableKeepAlive: true}, "rpc: KeepAlive: set while DisableKeepAlive is true"},
		{"h:1", rpc.Options{HeartbeatInterval: -time.Second}, "rpc: HeartbeatInterval -1s: negative"},
		{"h:1", rpc.Options{HeartbeatTimeout: -1}, "rpc: HeartbeatTimeout -1ns: negative"},
		{"h:1", rpc.Options{MaxAbandoned: -1}, "rpc: MaxAbandoned -1: negative"},
		{"h:1", rpc.Options{Handlers: map[string]any{"": rpc.Heartbeat}}, `rpc: Handlers[""]: empty method name`},
		{"h:1", handler(nil), `rpc: Handlers["M"]: <nil> is not a func(*rpc2.Client, Args, *Reply) error`},
		{"h:1", handler(nilFunc), `rpc: Handlers["M"]: nil func`},
		{"h:1", handler(7), `rpc: Handlers["M"]: int is not a func(*rpc2.Client, Args, *Reply) error`},
		{"h:1", handler(func(Args, *int) error { return nil }), `rpc: Handlers["M"]: func(rpc_test.Args, *int) error is not a func(*rpc2.Client, Args, *Reply) error`},
		{"h:1", handler(func(*int, Args, *int) error { return nil }), `rpc: Handlers["M"]: first argument *int is not *rpc2.Client`},
		{"h:1", handler(func(*rpc2.Client, unexported, *int) error { return nil }), `rpc: Handlers["M"]: argument type rpc_test.unexported is not exported`},
		{"h:1", handler(func(*rpc2.Client, Args, int) error { return nil }), `rpc: Handlers["M"]: reply type int is not a pointer`},
		{"h:1", handler(func(*rpc2.Client, Args, *unexported) error { return nil }), `rpc: Handlers["M"]: reply type *rpc_test.unexported is not exported`},
		{"h:1", handler(func(*rpc2.Client, Args, *int) int { return 0 }), `rpc: Handlers["M"]: returns int, not error`},
		{"h:1", rpc.Options{Supervisor: supervisor.Options[*rpc2.Client]{MaxAttempts: -1}}, "rpc: Supervisor.MaxAttempts -1: negative"},
		{"h:1", rpc.Options{Supervisor: supervisor.Options[*rpc2.Client]{ConnectTimeout: -time.Second}}, "rpc: Supervisor.ConnectTimeout -1s: negative"},
	} {
		c, err := rpc.New(tc.address, tc.o)
		assert.EqualError(t, err, tc.want)
		assert.ErrorIs(t, err, supervisor.ErrInvalidOptions, tc.want)
		assert.Nil(t, c)
	}
	_, err := rpc.New("h:1", handler(rpc.Heartbeat))
	assert.NoError(t, err)
}

// New copies the options: a Handlers map changed afterwards changes
// nothing.
func TestNewCopiesHandlers(t *testing.T) {
	rs := startRPCServer(t, true)
	o := rpc.Options{Handlers: map[string]any{"Client.Hello": hello}}
	c, err := rpc.New(rs.Addr, o)
	require.NoError(t, err)
	o.Handlers["Client.Hello"] = func(_ *rpc2.Client, _ string, reply *string) error {
		*reply = "changed"
		return nil
	}
	testkit.Run(t, c)
	var reply string
	require.NoError(t, c.Call(testkit.CtxWait(t), "Server.CallBack", "x", &reply))
	assert.Equal(t, "hello x", reply)
}

func TestDefaultNameIsTheAddress(t *testing.T) {
	c, err := rpc.New("rpc.internal:7000", rpc.Options{})
	require.NoError(t, err)
	assert.Equal(t, "rpc.internal:7000", c.Name())
	assert.Equal(t, "rpc.internal:7000", c.Status().Name)

	c, err = rpc.New("rpc.internal:7000", rpc.Options{Supervisor: supervisor.Options[*rpc2.Client]{Name: "jobs"}})
	require.NoError(t, err)
	assert.Equal(t, "jobs", c.Name(), "the program's Name wins")
}
