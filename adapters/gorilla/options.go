package gorilla

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/url"
	"time"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/supervisor"
)

// Defaults of Options. With them a silent peer is found within 15s
// (PingInterval + PingTimeout).
const (
	DefaultReadLimit    = httpcore.DefaultReadLimit // 1 MiB per message
	DefaultPingInterval = httpcore.DefaultPingInterval
	DefaultPingTimeout  = httpcore.DefaultPingTimeout
	DefaultCloseHint    = httpcore.DefaultCloseHint
	DefaultCloseTimeout = httpcore.DefaultCloseTimeout
)

// Options configures the Supervisor that New returns: the options of
// adapters/websocket (one core serves both), but EnableCompression for
// CompressionMode; each field's zero value means its documented default.
// New copies it (Header, Replicas, PublicQuery, Subprotocols and TLS
// included), so changing it afterwards changes nothing.
type Options struct {
	// Header is sent with every handshake; its values and their
	// name=value parts are masked wherever they appear. The headers the
	// handshake sets itself (Upgrade, Connection, Sec-WebSocket-*) are
	// refused.
	Header http.Header
	// BeforeConnect, if set, may change copies of the url and Header
	// before every attempt (a rotating token); what its last 16 calls set
	// is masked. With it, 401, 403 and close 1008 are retried with the
	// backoff rather than final. See websocket.Options.BeforeConnect.
	BeforeConnect func(ctx context.Context, u *url.URL, header http.Header) error
	// Replicas are more URLs of the same service, tried in turn after a
	// failure, the backoff once per round; each is masked like url.
	Replicas []string
	// PublicQuery names the query keys whose values may be shown; every
	// other query value is masked, whatever its key's name.
	PublicQuery []string
	// Subprotocols are offered in the handshake.
	Subprotocols []string
	// TLS is used for wss:// URLs; nil means Go's defaults.
	TLS *tls.Config
	// EnableCompression offers permessage-deflate in gorilla/websocket's
	// only mode, no context takeover; off by default.
	EnableCompression bool

	// ReadLimit is the largest message, in bytes; 0 means 1 MiB. A larger
	// one fails the read (websocket.ErrReadLimit, 1009 to the server) and
	// the supervisor reconnects; one that breaks three connections in a
	// row at the same place makes it give up.
	ReadLimit int64
	// PingInterval is the time between heartbeat pings; 0 means 10s.
	PingInterval time.Duration
	// PingTimeout is how long a ping waits for its pong; 0 means 5s. A
	// silent peer is found within PingInterval + PingTimeout, by the
	// heartbeat and by the reader, whose read deadline is that far after
	// the last pong or message.
	PingTimeout time.Duration
	// CloseTimeout bounds the goodbye when the supervisor stops: the close
	// frame (1000) is written within it, and a reader of this package
	// waits at most that long for the answer; 0 means 1s.
	CloseTimeout time.Duration
	// CloseHint is the least wait after a close 1012 or 1013 that names
	// none, spread over [CloseHint, 1.5*CloseHint); 0 means 5s.
	CloseHint time.Duration
	// WriteOnly says the program never reads: the adapter reads for it, on
	// one goroutine per connection, and a data message from the server
	// ends the connection (ErrUnexpectedData).
	WriteOnly bool

	// Supervisor configures the supervisor New returns; see supervisor.New
	// for its defaults. An empty Name becomes the URL, redacted. Its
	// Classify, if set, runs after this package's Classify.
	Supervisor supervisor.Options[*websocket.Conn]
}
