package gorilla

import (
	"slices"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/supervisor"
)

// New returns a Supervisor for the WebSocket at url (ws:// or wss://),
// ready to Run: adapters/websocket's New over gorilla's Dialer, with the
// same defaults (EnableCompression false) and secrets. The url's user name
// and password go as Basic authorization unless Header has one.
func New(url string, o Options) (*supervisor.Supervisor[*websocket.Conn], error) {
	cfg := httpcore.Config{
		URL: url, Replicas: o.Replicas, PublicQuery: o.PublicQuery, Header: o.Header, BeforeConnect: o.BeforeConnect,
		TLS: o.TLS, ReadLimit: o.ReadLimit, PingInterval: o.PingInterval, PingTimeout: o.PingTimeout,
		CloseTimeout: o.CloseTimeout, CloseHint: o.CloseHint, WriteOnly: o.WriteOnly,
	}
	return httpcore.New(&spec, cfg, supervisor.Options[*websocket.Conn]{Settings: o.Supervisor, OnConnect: o.OnConnect}, func(c *httpcore.Core) (httpcore.Library[*websocket.Conn], error) {
		return &library{Core: c, subprotocols: slices.Clone(o.Subprotocols), compression: o.EnableCompression}, nil
	})
}
