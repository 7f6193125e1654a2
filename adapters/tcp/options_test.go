package tcp_test

import (
	"net"
	"testing"
	"time"

	"github.com/cenkalti/rpc2"
	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/supervisor"
)

var badDial = []struct {
	o    tcp.DialOptions
	want string
}{
	{tcp.DialOptions{}, "Address is empty"},
	{tcp.DialOptions{Address: "localhost"}, `Address "localhost": address localhost: missing port`},
	{tcp.DialOptions{Address: "h:1", UserTimeout: -time.Second}, "UserTimeout -1s is negative"},
	{tcp.DialOptions{Address: "h:1", KeepAlive: net.KeepAliveConfig{Enable: true, Idle: -1}}, "KeepAlive.Idle -1ns is negative"},
	{tcp.DialOptions{Address: "h:1", KeepAlive: net.KeepAliveConfig{Enable: true, Interval: -1}}, "KeepAlive.Interval -1ns is negative"},
	{tcp.DialOptions{Address: "h:1", KeepAlive: net.KeepAliveConfig{Enable: true, Count: -1}}, "KeepAlive.Count -1 is negative"},
	{tcp.DialOptions{Address: "h:1", KeepAlive: net.KeepAliveConfig{Idle: time.Second}}, "KeepAlive.Idle, Interval or Count set without KeepAlive.Enable"},
	{tcp.DialOptions{Address: "h:1", KeepAlive: net.KeepAliveConfig{Enable: true}, DisableKeepAlive: true}, "KeepAlive is set but DisableKeepAlive"},
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, tc := range badDial {
		_, err := tcp.New(tcp.Options{DialOptions: tc.o})
		assert.ErrorContains(t, err, "tcp: "+tc.want)
	}
	_, err := tcp.New(tcp.Options{DialOptions: tcp.DialOptions{Address: "h:1"}, Supervisor: supervisor.Options[net.Conn]{ConnectTimeout: -1}})
	assert.ErrorContains(t, err, "ConnectTimeout")
	for _, ok := range []tcp.DialOptions{
		{Address: "h:1"},
		{Address: "h:1", DisableKeepAlive: true},
		{Address: "[::1]:80", KeepAlive: net.KeepAliveConfig{Enable: true, Count: 1}},
	} {
		_, err := tcp.New(tcp.Options{DialOptions: ok})
		assert.NoError(t, err, "%+v", ok)
	}
}

type Args struct{ N int }
type unexported struct{ N int }

func TestNewRPCRejectsBadOptions(t *testing.T) {
	for _, tc := range badDial {
		_, err := tcp.NewRPC(tcp.RPCOptions{DialOptions: tc.o})
		assert.ErrorContains(t, err, "tcp: "+tc.want)
	}
	addr := tcp.DialOptions{Address: "h:1"}
	var nilFunc func(*rpc2.Client, Args, *int) error
	for _, tc := range []struct {
		o    tcp.RPCOptions
		want string
	}{
		{tcp.RPCOptions{DialOptions: addr, HeartbeatInterval: -1}, "HeartbeatInterval -1ns is negative"},
		{tcp.RPCOptions{DialOptions: addr, HeartbeatTimeout: -1}, "HeartbeatTimeout -1ns is negative"},
		{tcp.RPCOptions{DialOptions: addr, MaxAbandoned: -1}, "MaxAbandoned -1 is negative"},
		{tcp.RPCOptions{DialOptions: addr, Handlers: map[string]any{"": tcp.Heartbeat}}, "Handlers: empty method name"},
		{tcp.RPCOptions{DialOptions: addr, Handlers: map[string]any{"M": nil}}, `Handlers["M"]: <nil> is not a func`},
		{tcp.RPCOptions{DialOptions: addr, Handlers: map[string]any{"M": nilFunc}}, `Handlers["M"]: nil func`},
		{tcp.RPCOptions{DialOptions: addr, Handlers: map[string]any{"M": 7}}, `Handlers["M"]: int is not a func`},
		{tcp.RPCOptions{DialOptions: addr, Handlers: map[string]any{"M": func(Args, *int) error { return nil }}}, `is not a func(*rpc2.Client, Args, *Reply) error`},
		{tcp.RPCOptions{DialOptions: addr, Handlers: map[string]any{"M": func(*int, Args, *int) error { return nil }}}, `first argument *int is not *rpc2.Client`},
		{tcp.RPCOptions{DialOptions: addr, Handlers: map[string]any{"M": func(*rpc2.Client, unexported, *int) error { return nil }}}, `argument type tcp_test.unexported is not exported`},
		{tcp.RPCOptions{DialOptions: addr, Handlers: map[string]any{"M": func(*rpc2.Client, Args, int) error { return nil }}}, `reply type int is not a pointer`},
		{tcp.RPCOptions{DialOptions: addr, Handlers: map[string]any{"M": func(*rpc2.Client, Args, *unexported) error { return nil }}}, `reply type *tcp_test.unexported is not exported`},
		{tcp.RPCOptions{DialOptions: addr, Handlers: map[string]any{"M": func(*rpc2.Client, Args, *int) int { return 0 }}}, `returns int, not error`},
		{tcp.RPCOptions{DialOptions: addr, Supervisor: supervisor.Options[*rpc2.Client]{MaxAttempts: -1}}, "MaxAttempts"},
	} {
		_, err := tcp.NewRPC(tc.o)
		assert.ErrorContains(t, err, tc.want)
	}
	_, err := tcp.NewRPC(tcp.RPCOptions{DialOptions: addr, Handlers: map[string]any{"M": tcp.Heartbeat}})
	assert.NoError(t, err)
}
