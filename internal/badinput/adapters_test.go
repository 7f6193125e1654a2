package badinput

import (
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/adapters/tcp"
	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

func TestWebSocketBadInput(t *testing.T) {
	ws := func(o redialws.Options) func() error {
		return func() error { _, err := redialws.New(o); return err }
	}
	check(t, []bad{
		{"empty URL", ws(redialws.Options{}), "URL"},
		{"malformed URL", ws(redialws.Options{URL: "ws://[::1"}), "URL"},
		{"http scheme", ws(redialws.Options{URL: "http://example.com/feed"}), "URL"},
		{"no host", ws(redialws.Options{URL: "ws:///feed"}), "URL"},
		{"negative ReadLimit", ws(redialws.Options{URL: "ws://h/", ReadLimit: -1}), "ReadLimit"},
		{"negative PingInterval", ws(redialws.Options{URL: "ws://h/", PingInterval: -time.Second}), "PingInterval"},
		{"century PingTimeout", ws(redialws.Options{URL: "ws://h/", PingTimeout: century}), "PingTimeout"},
		{"negative CloseHint", ws(redialws.Options{URL: "ws://h/", CloseHint: -1}), "CloseHint"},
		{"supervisor Cap of a century", ws(redialws.Options{URL: "ws://h/", Supervisor: supervisor.Options[*websocket.Conn]{Backoff: backoff.Config{Cap: century}}}), "Cap"},
	})
}

func TestPostgresBadInput(t *testing.T) {
	conn := func(o postgres.Options) func() error {
		return func() error { _, err := postgres.NewConn(postgres.ConnOptions{Options: o}); return err }
	}
	check(t, []bad{
		{"empty DSN", conn(postgres.Options{}), "DSN"},
		{"malformed URL DSN", conn(postgres.Options{DSN: "postgres://u:hunter22@[::1/db"}), "DSN"},
		{"malformed key=value DSN", conn(postgres.Options{DSN: "host=db password='hunter22"}), "DSN"},
		{"negative ConnectTimeout", conn(postgres.Options{DSN: "postgres://u@h/db", ConnectTimeout: -1}), "ConnectTimeout"},
		{"Base larger than Cap", conn(postgres.Options{DSN: "postgres://u@h/db", Backoff: backoff.Config{Base: time.Hour, Cap: time.Second}}), "Cap"},
		{"listener empty channel", func() error {
			_, err := postgres.NewListener(postgres.ListenerOptions{Options: postgres.Options{DSN: "postgres://u@h/db"}, Channels: []string{""}})
			return err
		}, "Channels[0]"},
		{"listener negative Buffer", func() error {
			_, err := postgres.NewListener(postgres.ListenerOptions{Options: postgres.Options{DSN: "postgres://u@h/db"}, Buffer: -1})
			return err
		}, "Buffer"},
		{"listener negative PingTimeout", func() error {
			_, err := postgres.NewListener(postgres.ListenerOptions{Options: postgres.Options{DSN: "postgres://u@h/db"}, PingTimeout: -1})
			return err
		}, "PingTimeout"},
		{"pool negative PingInterval", func() error {
			_, err := postgres.NewPool(postgres.PoolOptions{Options: postgres.Options{DSN: "postgres://u@h/db"}, PingInterval: -time.Second})
			return err
		}, "PingInterval"},
	})
	// The malformed DSNs' password never shows in the error.
	for _, dsn := range []string{"postgres://u:hunter22@[::1/db", "host=db password='hunter22"} {
		_, err := postgres.NewConn(postgres.ConnOptions{Options: postgres.Options{DSN: dsn}})
		if err != nil && contains(err.Error(), "hunter22") {
			t.Errorf("the password leaked: %v", err)
		}
	}
}

func TestTCPBadInput(t *testing.T) {
	plain := func(o tcp.Options) func() error {
		return func() error { _, err := tcp.New(o); return err }
	}
	check(t, []bad{
		{"empty Address", plain(tcp.Options{}), "Address"},
		{"Address without port", plain(tcp.Options{DialOptions: tcp.DialOptions{Address: "localhost"}}), "Address"},
		{"negative UserTimeout", plain(tcp.Options{DialOptions: tcp.DialOptions{Address: "h:1", UserTimeout: -time.Second}}), "UserTimeout"},
		{"rpc empty Address", func() error { _, err := tcp.NewRPC(tcp.RPCOptions{}); return err }, "Address"},
		{"rpc handler not a func", func() error {
			_, err := tcp.NewRPC(tcp.RPCOptions{DialOptions: tcp.DialOptions{Address: "h:1"}, Handlers: map[string]any{"Client.X": 42}})
			return err
		}, "Client.X"},
		{"rpc negative HeartbeatInterval", func() error {
			_, err := tcp.NewRPC(tcp.RPCOptions{DialOptions: tcp.DialOptions{Address: "h:1"}, HeartbeatInterval: -1})
			return err
		}, "HeartbeatInterval"},
		{"rpc negative MaxAbandoned", func() error {
			_, err := tcp.NewRPC(tcp.RPCOptions{DialOptions: tcp.DialOptions{Address: "h:1"}, MaxAbandoned: -1})
			return err
		}, "MaxAbandoned"},
	})
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
