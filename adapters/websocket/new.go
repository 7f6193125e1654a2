package websocket

import (
	"slices"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

// New returns a Supervisor for the WebSocket at url (ws:// or wss://),
// ready to Run; proxies come from the environment. Defaults: ReadLimit 1
// MiB, PingInterval 10s, PingTimeout 5s, CloseTimeout 1s, CloseHint 5s,
// supervisor.New's, Name the url redacted: no error, log or Status holds
// its credentials, a query value not in PublicQuery or a header value.
func New(url string, o Options) (*supervisor.Supervisor[*websocket.Conn], error) {
	cfg := httpcore.Config{
		URL: url, Replicas: o.Replicas, PublicQuery: o.PublicQuery, Header: o.Header, BeforeConnect: o.BeforeConnect,
		TLS: o.TLS, ReadLimit: o.ReadLimit, PingInterval: o.PingInterval, PingTimeout: o.PingTimeout,
		CloseTimeout: o.CloseTimeout, CloseHint: o.CloseHint, WriteOnly: o.WriteOnly,
	}
	return httpcore.New(&spec, cfg, supervisor.Options[*websocket.Conn]{Settings: o.Supervisor, OnConnect: o.OnConnect}, func(c *httpcore.Core) (httpcore.Library[*websocket.Conn], error) {
		switch o.CompressionMode {
		case websocket.CompressionDisabled, websocket.CompressionContextTakeover, websocket.CompressionNoContextTakeover:
		default:
			return nil, opterr.New(spec.Pkg, "CompressionMode", int(o.CompressionMode), "unknown")
		}
		return &library{Core: c, subprotocols: slices.Clone(o.Subprotocols), compression: o.CompressionMode}, nil
	})
}
