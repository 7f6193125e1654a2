package websocket

import (
	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/supervisor"
)

// New returns a Supervisor for the WebSocket at url, ready to Run: it
// dials url (ws:// or wss://), runs o.Supervisor.OnConnect after every
// connect, watches the connection with a ping heartbeat, and classifies
// errors as Classify says, with o's CloseHint spread over [CloseHint,
// 1.5*CloseHint).
//
// Credentials in url (a user name and password, query parameters such as
// token, key, password, secret, signature) are sent to the server but never
// appear in an error, a log line or a Status. A '?', '#', '/' or '@' in a
// password must be escaped.
//
// The defaults of o: Header none, Subprotocols none, TLSConfig Go's,
// CompressionMode websocket.CompressionDisabled, ReadLimit 1 MiB,
// PingInterval 10s, PingTimeout 5s (a silent peer is found within 15s), CloseTimeout 1s, CloseHint 5s,
// WriteOnly false (the program reads, see Messages); the supervisor's own
// (Backoff Decorrelated with Base 1s and Cap 1 minute, StableAfter 30s,
// ConnectTimeout 10s, MaxAttempts 0, MaxHint 5 minutes, no Budget, no
// Classify but this package's, no Logger, no OnConnect), and Name the
// redacted url. New copies o.
//
// A bad url or option is one error, wrapping supervisor.ErrInvalidOptions,
// that names it: `websocket: PingInterval -1s: negative`,
// `websocket: url: empty`, `websocket: Supervisor.ConnectTimeout -1s:
// negative`. It never holds url's credentials.
func New(url string, o Options) (*supervisor.Supervisor[*websocket.Conn], error) {
	c, err := newConnector(url, o)
	if err != nil {
		return nil, err
	}
	sp := adapt.Spec{Pkg: "websocket", Name: c.set.URLs[0].Shown, Classify: c.classify}
	if len(c.set.URLs) > 1 {
		return adapt.New[*websocket.Conn](sp, replicas{c}, o.Supervisor)
	}
	return adapt.New(sp, c, o.Supervisor)
}
