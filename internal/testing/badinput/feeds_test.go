package badinput

import (
	"net/http"
	"testing"
	"time"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/adapters/sse"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

func TestGorillaBadInput(t *testing.T) {
	g := func(url string, o gorilla.Options) func() error {
		return func() error { _, err := gorilla.New(url, o); return err }
	}
	check(t, []bad{
		{"empty url", g("", gorilla.Options{}), "gorilla: url: empty"},
		{"http scheme", g("http://h/x?token=SECRET123", gorilla.Options{}), `gorilla: url "http://h/x?token=xxxxx": scheme "http" is not ws or wss`},
		{"bad replica", g("ws://h/x", gorilla.Options{Replicas: []string{"ws:///x"}}), `gorilla: Replicas[0] "ws:///x": no host`},
		{"negative ReadLimit", g("ws://h/x", gorilla.Options{ReadLimit: -1}), "gorilla: ReadLimit -1: negative"},
		{"negative PingInterval", g("ws://h/x", gorilla.Options{PingInterval: -time.Second}), "gorilla: PingInterval -1s: negative"},
		{"century CloseTimeout", g("ws://h/x", gorilla.Options{CloseTimeout: century}), "gorilla: CloseTimeout 876000h0m0s: longer than 24h0m0s"},
		{"handshake header", g("ws://h/x", gorilla.Options{Header: http.Header{"Sec-Websocket-Key": {"x"}}}), `gorilla: Header "Sec-Websocket-Key": set by the handshake`},
		{"subprotocol header", g("ws://h/x", gorilla.Options{Header: http.Header{"Sec-Websocket-Protocol": {"x"}}}), `gorilla: Header "Sec-Websocket-Protocol": set by the handshake`},
		{"supervisor negative FailoverSpread", g("ws://h/x", gorilla.Options{Supervisor: supervisor.Settings{FailoverSpread: -1}}),
			"gorilla: Supervisor.FailoverSpread -1ns: negative"},
	})
}

func TestSSEBadInput(t *testing.T) {
	s := func(url string, o sse.Options) func() error {
		return func() error { _, err := sse.New(url, o); return err }
	}
	check(t, []bad{
		{"empty url", s("", sse.Options{}), "sse: url: empty"},
		{"ws scheme", s("ws://h/x", sse.Options{}), `sse: url "ws://h/x": scheme "ws" is not http or https`},
		{"negative IdleTimeout", s("http://h/x", sse.Options{IdleTimeout: -time.Second}), "sse: IdleTimeout -1s: negative"},
		{"century IdleTimeout", s("http://h/x", sse.Options{IdleTimeout: century}), "sse: IdleTimeout 876000h0m0s: longer than 24h0m0s"},
		{"negative ReadLimit", s("http://h/x", sse.Options{ReadLimit: -1}), "sse: ReadLimit -1: negative"},
		{"bad replica", s("http://h/x", sse.Options{Replicas: []string{"ftp://h/x?token=SECRET123"}}), `sse: Replicas[0] "ftp://h/x?token=xxxxx": scheme "ftp" is not http or https`},
		{"negative Buffer", s("http://h/x", sse.Options{Buffer: -1}), "sse: Buffer -1: negative"},
		{"LastEventID with a newline", s("http://h/x", sse.Options{LastEventID: "a\nb"}), `sse: LastEventID "a\nb": contains a control character other than tab, which net/http refuses in a header value`},
		{"supervisor Cap of a century", s("http://h/x", sse.Options{Supervisor: supervisor.Settings{Backoff: backoff.Config{Cap: century}}}),
			"sse: Supervisor.Backoff.Cap 876000h0m0s: longer than 24h0m0s"},
	})
}
