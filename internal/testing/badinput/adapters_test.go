package badinput

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/adapters/tcp/rpc"
	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

func TestWebSocketBadInput(t *testing.T) {
	ws := func(url string, o redialws.Options) func() error {
		return func() error { _, err := redialws.New(url, o); return err }
	}
	check(t, []bad{
		{"empty url", ws("", redialws.Options{}), "websocket: url: empty"},
		{"malformed url", ws("ws://[::1", redialws.Options{}), `websocket: url: malformed: missing ']' in host`},
		{"http scheme", ws("http://example.com/feed", redialws.Options{}), `websocket: url "http://example.com/feed": scheme "http" is not ws or wss`},
		{"no host", ws("ws:///feed", redialws.Options{}), `websocket: url "ws:///feed": no host`},
		{"negative ReadLimit", ws("ws://h/", redialws.Options{ReadLimit: -1}), "websocket: ReadLimit -1: negative"},
		{"negative PingInterval", ws("ws://h/", redialws.Options{PingInterval: -time.Second}), "websocket: PingInterval -1s: negative"},
		{"century PingTimeout", ws("ws://h/", redialws.Options{PingTimeout: century}), "websocket: PingTimeout 876000h0m0s: longer than 24h0m0s"},
		{"negative CloseHint", ws("ws://h/", redialws.Options{CloseHint: -1}), "websocket: CloseHint -1ns: negative"},
		{"unknown CompressionMode", ws("ws://h/", redialws.Options{CompressionMode: 7}), "websocket: CompressionMode 7: unknown"},
		{"handshake header", ws("ws://h/", redialws.Options{Header: http.Header{"Sec-WebSocket-Extensions": {"permessage-deflate"}}}), `websocket: Header "Sec-Websocket-Extensions": set by the handshake`},
		{"bad replica", ws("ws://h/", redialws.Options{Replicas: []string{"ws:///x"}}), `websocket: Replicas[0] "ws:///x": no host`},
		{"supervisor Cap of a century", ws("ws://h/", redialws.Options{Supervisor: supervisor.Settings{Backoff: backoff.Config{Cap: century}}}),
			"websocket: Supervisor.Backoff.Cap 876000h0m0s: longer than 24h0m0s"},
		{"supervisor negative ConnectTimeout", ws("ws://h/", redialws.Options{Supervisor: supervisor.Settings{ConnectTimeout: -time.Second}}),
			"websocket: Supervisor.ConnectTimeout -1s: negative"},
	})
}

const dsn = "postgres://u@h/db"

func TestPostgresBadInput(t *testing.T) {
	conn := func(dsn string, o postgres.ConnOptions) func() error {
		return func() error { _, err := postgres.NewConn(dsn, o); return err }
	}
	listener := func(o postgres.ListenerOptions) func() error {
		return func() error { _, err := postgres.NewListener(dsn, o); return err }
	}
	pool := func(o postgres.PoolOptions) func() error {
		return func() error { _, err := postgres.NewPool(dsn, o); return err }
	}
	check(t, []bad{
		{"empty dsn", conn("", postgres.ConnOptions{}), "postgres: dsn: empty (want postgres://user:password@host:5432/db or host=... user=... dbname=...)"},
		{"malformed URL dsn", conn("postgres://u:hunter22@[::1/db", postgres.ConnOptions{}), "postgres: dsn: malformed: failed to parse as URL (end of string reached when looking for matching … in IPv6 host address in URI)"},
		{"malformed key=value dsn", conn("host=db password='hunter22", postgres.ConnOptions{}), "postgres: dsn: malformed: failed to parse as keyword/value (unterminated quoted string in connection info string)"},
		{"negative TooManyConnectionsHint", conn(dsn, postgres.ConnOptions{TooManyConnectionsHint: -time.Second}), "postgres: TooManyConnectionsHint -1s: negative"},
		{"negative ConnectTimeout", conn(dsn, postgres.ConnOptions{Supervisor: supervisor.Settings{ConnectTimeout: -1}}), "postgres: Supervisor.ConnectTimeout -1ns: negative"},
		{"Base larger than Cap", conn(dsn, postgres.ConnOptions{Supervisor: supervisor.Settings{Backoff: backoff.Config{Base: time.Hour, Cap: time.Second}}}),
			"postgres: Supervisor.Backoff.Cap 1s: shorter than Base 1h0m0s"},
		{"listener empty channel", listener(postgres.ListenerOptions{Channels: []string{""}}), "postgres: Channels[0]: empty"},
		{"listener negative Buffer", listener(postgres.ListenerOptions{Buffer: -1}), "postgres: Buffer -1: negative"},
		{"listener negative PingTimeout", listener(postgres.ListenerOptions{PingTimeout: -1}), "postgres: PingTimeout -1ns: negative"},
		{"listener negative MaxAttempts", listener(postgres.ListenerOptions{Supervisor: supervisor.Settings{MaxAttempts: -1}}), "postgres: Supervisor.MaxAttempts -1: negative"},
		{"pool negative PingInterval", pool(postgres.PoolOptions{PingInterval: -time.Second}), "postgres: PingInterval -1s: negative"},
		{"pool MaxConns 0", pool(postgres.PoolOptions{Configure: func(c *pgxpool.Config) { c.MaxConns = 0 }}),
			"postgres: Configure: left MaxConns 0, MinConns 0 (want 1 <= MaxConns, MinConns <= MaxConns)"},
		{"pool negative StableAfter", pool(postgres.PoolOptions{Supervisor: supervisor.Settings{StableAfter: -time.Second}}), "postgres: Supervisor.StableAfter -1s: negative"},
	})
	// The malformed DSNs' password never shows in the error.
	for _, dsn := range []string{"postgres://u:hunter22@[::1/db", "host=db password='hunter22"} {
		_, err := postgres.NewConn(dsn, postgres.ConnOptions{})
		if err != nil && strings.Contains(err.Error(), "hunter22") {
			t.Errorf("the password leaked: %v", err)
		}
	}
}

func TestTCPBadInput(t *testing.T) {
	plain := func(address string, o tcp.Options) func() error {
		return func() error { _, err := tcp.New(address, o); return err }
	}
	client := func(o rpc.Options) func() error {
		return func() error { _, err := rpc.New("h:1", o); return err }
	}
	check(t, []bad{
		{"empty address", plain("", tcp.Options{}), "tcp: address: empty"},
		{"address without port", plain("localhost", tcp.Options{}), `tcp: address "localhost": missing port in address`},
		{"negative UserTimeout", plain("h:1", tcp.Options{UserTimeout: -time.Second}), "tcp: UserTimeout -1s: negative"},
		{"KeepAlive.Idle over 24h", plain("h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Idle: 25 * time.Hour}}), "tcp: KeepAlive.Idle 25h0m0s: longer than 24h0m0s"},
		{"supervisor negative MaxHint", plain("h:1", tcp.Options{Supervisor: supervisor.Settings{MaxHint: -1}}), "tcp: Supervisor.MaxHint -1ns: negative"},
		{"rpc empty address", func() error { _, err := rpc.New("", rpc.Options{}); return err }, "rpc: address: empty"},
		{"rpc handler not a func", client(rpc.Options{Handlers: map[string]any{"Client.X": 42}}), `rpc: Handlers["Client.X"]: int is not a func(*rpc2.Client, Args, *Reply) error`},
		{"rpc negative PingInterval", client(rpc.Options{PingInterval: -1}), "rpc: PingInterval -1ns: negative"},
		{"rpc negative MaxAbandoned", client(rpc.Options{MaxAbandoned: -1}), "rpc: MaxAbandoned -1: negative"},
		{"rpc supervisor unknown strategy", client(rpc.Options{Supervisor: supervisor.Settings{Backoff: backoff.Config{Strategy: 5}}}),
			"rpc: Supervisor.Backoff.Strategy 5: unknown (want Decorrelated, Full, Equal or Exponential)"},
	})
}
