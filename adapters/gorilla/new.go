package gorilla

import (
	"slices"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/supervisor"
)

// New returns a Supervisor for the WebSocket at url (ws:// or wss://),
// ready to Run: adapters/websocket's New over gorilla/websocket's Dialer,
// with the same defaults (EnableCompression false), classes, secrets and
// bad-option errors (`gorilla: PingInterval -1s: negative`). The url's
// user name and password are sent as Basic authorization unless Header
// has an Authorization (gorilla's Dialer refuses them in the url).
// Proxies come from the environment, as with net/http. New copies o.
func New(url string, o Options) (*supervisor.Supervisor[*websocket.Conn], error) {
	cfg := httpcore.Config{
		URL: url, Replicas: o.Replicas, PublicQuery: o.PublicQuery, Header: o.Header, BeforeConnect: o.BeforeConnect,
		TLS: o.TLS, ReadLimit: o.ReadLimit, PingInterval: o.PingInterval, PingTimeout: o.PingTimeout,
		CloseTimeout: o.CloseTimeout, CloseHint: o.CloseHint, WriteOnly: o.WriteOnly,
	}
	return httpcore.New(&spec, cfg, o.Supervisor, func(c *httpcore.Core) (httpcore.Library[*websocket.Conn], error) {
		return &library{Core: c, subprotocols: slices.Clone(o.Subprotocols), compression: o.EnableCompression}, nil
	})
}
