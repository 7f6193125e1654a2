package rpc_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/internal/testing/conformance"
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

type Args struct{ N int }
type unexported struct{ N int }

// The harness: an rpc2 server that serves pings; one that does not is the
// refusal for good. The program's loop holds each connection until
// rpc2 says it is gone.
func TestConformance(t *testing.T) {
	const interval, timeout = 200 * time.Millisecond, time.Second
	serving, withoutPing := rpc2.NewServer(), rpc2.NewServer()
	rpc.HandlePing(serving)
	var nilFunc func(*rpc2.Client, Args, *int) error
	handler := func(h any) rpc.Options { return rpc.Options{Handlers: map[string]any{"M": h}} }
	redialtest.TestConnector(t, redialtest.Harness{
		Pkg: "rpc",
		Start: func(t testing.TB) redialtest.Server {
			return conformance.StartTCP(t, &conformance.TCPServer{
				Serving: func(c net.Conn, _ <-chan struct{}) { serving.ServeConn(c) },
				ForGood: func(c net.Conn, _ <-chan struct{}) { withoutPing.ServeConn(c) },
			})
		},
		New: func(t testing.TB, addr string, o redialtest.Options) (redialtest.Client, error) {
			return rpc.New(addr, rpc.Options{
				PingInterval: interval,
				PingTimeout:  timeout,
				OnConnect:    redialtest.OnConnect[*rpc2.Client](o.OnConnect),
				Supervisor:   o.Settings,
			})
		},
		Streams: []redialtest.Stream{redialtest.Connections(asSupervisor, untilDisconnected)},
		Bad: []redialtest.Bad{
			bad("", rpc.Options{}, "rpc: address: empty"),
			bad("localhost", rpc.Options{}, `rpc: address "localhost": missing port in address`),
			bad("h:1", rpc.Options{UserTimeout: -time.Second}, "rpc: UserTimeout -1s: negative"),
			bad("h:1", rpc.Options{UserTimeout: 25 * time.Hour}, "rpc: UserTimeout 25h0m0s: longer than 24h0m0s"),
			bad("h:1", rpc.Options{KeepAlive: net.KeepAliveConfig{Idle: 25 * time.Hour}}, "rpc: KeepAlive.Idle 25h0m0s: longer than 24h0m0s"),
			bad("h:1", rpc.Options{KeepAlive: net.KeepAliveConfig{Interval: 25 * time.Hour}}, "rpc: KeepAlive.Interval 25h0m0s: longer than 24h0m0s"),
			bad("h:1", rpc.Options{KeepAlive: net.KeepAliveConfig{Count: -1}}, "rpc: KeepAlive.Count -1: negative"),
			bad("h:1", rpc.Options{KeepAlive: net.KeepAliveConfig{Idle: -1, Interval: time.Second}}, "rpc: KeepAlive: Interval or Count set while Idle is negative (keep-alive off)"),
			bad("h:1", rpc.Options{PingInterval: -time.Second}, "rpc: PingInterval -1s: negative"),
			bad("h:1", rpc.Options{PingTimeout: -1}, "rpc: PingTimeout -1ns: negative"),
			bad("h:1", rpc.Options{PingTimeout: 25 * time.Hour}, "rpc: PingTimeout 25h0m0s: longer than 24h0m0s"),
			bad("h:1", rpc.Options{DisablePing: true, PingMethod: "M"}, `rpc: PingMethod "M": set while DisablePing is true`),
			bad("h:1", rpc.Options{DisablePing: true, PingInterval: time.Second}, "rpc: PingInterval 1s: set while DisablePing is true"),
			bad("h:1", rpc.Options{DisablePing: true, PingTimeout: time.Second}, "rpc: PingTimeout 1s: set while DisablePing is true"),
			bad("h:1", rpc.Options{MaxAbandoned: -1}, "rpc: MaxAbandoned -1: negative"),
			bad("h:1", rpc.Options{Handlers: map[string]any{"": func(*rpc2.Client, Args, *int) error { return nil }}}, `rpc: Handlers[""]: empty method name`),
			bad("h:1", handler(nil), `rpc: Handlers["M"]: <nil> is not a func(*rpc2.Client, Args, *Reply) error`),
			bad("h:1", handler(nilFunc), `rpc: Handlers["M"]: nil func`),
			bad("h:1", handler(7), `rpc: Handlers["M"]: int is not a func(*rpc2.Client, Args, *Reply) error`),
			bad("h:1", handler(func(Args, *int) error { return nil }), `rpc: Handlers["M"]: func(rpc_test.Args, *int) error is not a func(*rpc2.Client, Args, *Reply) error`),
			bad("h:1", handler(func(*int, Args, *int) error { return nil }), `rpc: Handlers["M"]: first argument *int is not *rpc2.Client`),
			bad("h:1", handler(func(*rpc2.Client, unexported, *int) error { return nil }), `rpc: Handlers["M"]: argument type rpc_test.unexported is not exported`),
			bad("h:1", handler(func(*rpc2.Client, Args, int) error { return nil }), `rpc: Handlers["M"]: reply type int is not a pointer`),
			bad("h:1", handler(func(*rpc2.Client, Args, *unexported) error { return nil }), `rpc: Handlers["M"]: reply type *rpc_test.unexported is not exported`),
			bad("h:1", handler(func(*rpc2.Client, Args, *int) int { return 0 }), `rpc: Handlers["M"]: returns int, not error`),
			bad("a:1", rpc.Options{Replicas: []string{""}}, `rpc: Replicas[0]: empty`),
		},
		Refusal:   `ping: the server has no method "redial.Heartbeat"`,
		OnConnect: true,
		Silent:    supervisor.ErrSilent,
		Liveness:  2*interval + timeout,
		Skip: map[string]string{
			"secrets-refused":   noSecrets,
			"secrets-closed":    noSecrets,
			"secrets-after-run": noSecrets,
			"secrets-callbacks": noSecrets,
			"panic-connect":     noHook,
			"timeout-connect":   noHook,
		},
	})
}

const (
	noSecrets = "rpc has no secret to show: its target is host:port and it sends no credential"
	noHook    = "rpc has no per-attempt hook of the program's (no BeforeConnect, no Handshake): nothing of the program's runs in Connect"
)

func asSupervisor(c redialtest.Client) *supervisor.Supervisor[*rpc2.Client] {
	return c.(*rpc.Client).Sup()
}

func bad(address string, o rpc.Options, want string) redialtest.Bad {
	return redialtest.Bad{Want: want, New: func() error {
		c, err := rpc.New(address, o)
		if c != nil {
			return fmt.Errorf("rpc.New returned a Client with its error %v", err)
		}
		return err
	}}
}

var errDisconnected = errors.New("rpc2 client disconnected")

// untilDisconnected is the program's loop body: it holds the client until
// rpc2 says its connection is gone.
func untilDisconnected(ctx context.Context, c *rpc2.Client) error {
	select {
	case <-c.DisconnectNotify():
		return errDisconnected
	case <-ctx.Done():
		return ctx.Err()
	}
}
