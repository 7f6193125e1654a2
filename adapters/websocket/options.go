package websocket

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/url"
	"time"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/supervisor"
)

// Defaults of Options.
const (
	DefaultReadLimit    = httpcore.DefaultReadLimit // 1 MiB per message
	DefaultPingInterval = httpcore.DefaultPingInterval
	DefaultPingTimeout  = httpcore.DefaultPingTimeout
	DefaultCloseHint    = httpcore.DefaultCloseHint
	DefaultCloseTimeout = httpcore.DefaultCloseTimeout
)

// Options configures the Supervisor that New returns. The zero value of
// every field means its documented default; New copies it (Header,
// Subprotocols and TLS included), so changing it afterwards changes
// nothing.
type Options struct {
	// Header is sent with every handshake (Authorization, Origin, ...).
	// Its values, and each name=value part of them, never appear in an
	// error, a log line or a Status: the program set them, so they may be
	// credentials. The headers the handshake sets itself (Upgrade,
	// Connection, Sec-WebSocket-Key, -Version, -Extensions, -Accept and
	// -Protocol: use Subprotocols) are refused.
	Header http.Header
	// BeforeConnect, when set, is called before every attempt with copies
	// of the url and Header the handshake will use; it may change them (a
	// rotating token in the query or in Authorization). The values it sets
	// are masked like the url's and Header's, those of its last 16 calls
	// that set something new included, and so is its error's text. It is
	// called on the attempt's goroutine, bounded by ConnectTimeout. An
	// error from it fails the attempt (retried, unless it is
	// backoff.Permanent); a url or header it breaks fails it for good. With
	// BeforeConnect set, a handshake answered 401 or 403 and a close 1008
	// are retried with the backoff rather than given up on: the next
	// attempt may carry new credentials.
	BeforeConnect func(ctx context.Context, u *url.URL, header http.Header) error
	// Replicas are more URLs of the same service (replicas behind no load
	// balancer). The supervisor tries url first; after a failed attempt or
	// a lost connection it goes to the next replica at once (within the
	// supervisor's FailoverSpread), and backs off only when every one
	// failed. Status.Endpoint says which is in use. Each is masked like url.
	Replicas []string
	// PublicQuery names the query keys of the url whose values may be
	// shown (in the default Name, errors, logs, probes and metrics). Every
	// other query value is masked wherever it appears, whatever its key's
	// name: ?jwt=..., ?ticket=..., ?sid=... are not guessed at.
	PublicQuery []string
	// Subprotocols are offered in the handshake.
	Subprotocols []string
	// TLS is used for wss:// URLs; nil means Go's defaults.
	TLS *tls.Config
	// CompressionMode offers permessage-deflate (RFC 7692) in the
	// handshake; the zero value is coder/websocket's default,
	// websocket.CompressionDisabled. Compression is used only when the
	// server accepts the extension; otherwise messages flow uncompressed.
	CompressionMode websocket.CompressionMode

	// ReadLimit is the largest message, in bytes, that a read accepts; 0
	// means 1 MiB. A larger message fails the read (websocket.ErrMessageTooBig),
	// the connection is closed with 1009 and the supervisor reconnects:
	// memory stays bounded whatever the server sends. One that breaks
	// three connections in a row at the same place makes it give up.
	ReadLimit int64
	// PingInterval is the time between heartbeat pings; 0 means 10s.
	PingInterval time.Duration
	// PingTimeout is how long a ping waits for its pong; 0 means 5s. A
	// silent peer is found within PingInterval + PingTimeout (15s by default).
	PingTimeout time.Duration
	// CloseTimeout bounds the close handshake when the supervisor stops: how
	// long Close waits for the server's answer, discarding what it still
	// sends, before it drops the connection; 0 means 1s. A connection known
	// to be broken (a failed heartbeat or read) is dropped at once.
	CloseTimeout time.Duration
	// CloseHint is the least wait after the server closed with 1012 (service
	// restart) or 1013 (try again later) without saying how long; 0 means
	// 5s. The wait is drawn from [CloseHint, 1.5*CloseHint) so that a fleet
	// sent away at one instant does not come back in one wave.
	CloseHint time.Duration
	// WriteOnly says the program never reads messages. The adapter then
	// reads for it, on one goroutine per connection, so that pongs and close
	// frames are handled; a data message from the server ends the connection
	// (ErrUnexpectedData), and OnConnect must not read. Without WriteOnly
	// the program must keep reading (see Messages), or the heartbeat fails
	// and the connection is replaced.
	WriteOnly bool

	// Supervisor configures the supervisor New returns; see supervisor.New
	// for its defaults. An empty Name becomes the URL, redacted. Its
	// Classify, if set, runs after this package's Classify.
	Supervisor supervisor.Options[*websocket.Conn]
}
