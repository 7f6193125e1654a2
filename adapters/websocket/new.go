package websocket

import (
	"slices"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

// New returns a Supervisor for the WebSocket at url, ready to Run: it
// dials url (ws:// or wss://), runs o.Supervisor.OnConnect after every
// connect, watches the connection with a ping heartbeat, and classifies
// errors as Classify says, with o's CloseHint spread over [CloseHint,
// 1.5*CloseHint) and, with o.BeforeConnect, 401, 403 and 1008 retried.
//
// Credentials in url (a user name and password, sent as Basic
// authorization; every query value but those of o.PublicQuery), Header's
// values and those BeforeConnect sets are sent to the server but never
// appear in an error, a log line or a Status, even where the server
// echoes them. A '?', '#', '/' or '@' in a password must be escaped.
//
// The defaults of o: Header none, PublicQuery none, Subprotocols none,
// TLS Go's, CompressionMode websocket.CompressionDisabled, ReadLimit
// 1 MiB, PingInterval 10s, PingTimeout 5s (a silent peer is found within
// 15s), CloseTimeout 1s, CloseHint 5s, WriteOnly false (the program
// reads, see Messages), BeforeConnect none, Replicas none; the
// supervisor's own (Backoff Decorrelated with Base 1s and Cap 1 minute,
// StableAfter 30s, ConnectTimeout 10s, FailoverSpread Base/2, MaxAttempts
// 0, MaxHint 5 minutes, no Budget, no Classify but this package's, no
// Logger, no OnConnect), and Name the redacted url. Proxies come from the
// environment (HTTPS_PROXY, NO_PROXY), as with net/http. New copies o.
//
// A bad url or option is one error, wrapping supervisor.ErrInvalidOptions,
// that names it: `websocket: PingInterval -1s: negative`,
// `websocket: url: empty`, `websocket: Header "Upgrade": set by the
// handshake`, `websocket: Supervisor.ConnectTimeout -1s: negative`. It
// never holds url's credentials.
func New(url string, o Options) (*supervisor.Supervisor[*websocket.Conn], error) {
	cfg := httpcore.Config{
		URL: url, Replicas: o.Replicas, PublicQuery: o.PublicQuery, Header: o.Header, BeforeConnect: o.BeforeConnect,
		TLS: o.TLS, ReadLimit: o.ReadLimit, PingInterval: o.PingInterval, PingTimeout: o.PingTimeout,
		CloseTimeout: o.CloseTimeout, CloseHint: o.CloseHint, WriteOnly: o.WriteOnly,
	}
	return httpcore.New(&spec, cfg, o.Supervisor, func(c *httpcore.Core) (httpcore.Library[*websocket.Conn], error) {
		switch o.CompressionMode {
		case websocket.CompressionDisabled, websocket.CompressionContextTakeover, websocket.CompressionNoContextTakeover:
		default:
			return nil, opterr.New(spec.Pkg, "CompressionMode", int(o.CompressionMode), "unknown")
		}
		return &library{Core: c, subprotocols: slices.Clone(o.Subprotocols), compression: o.CompressionMode}, nil
	})
}
