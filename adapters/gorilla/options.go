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

// Defaults of Options: a silent peer is found within 15s.
const (
	DefaultReadLimit    = httpcore.DefaultReadLimit // 1 MiB per message
	DefaultPingInterval = httpcore.DefaultPingInterval
	DefaultPingTimeout  = httpcore.DefaultPingTimeout
	DefaultCloseHint    = httpcore.DefaultCloseHint
	DefaultCloseTimeout = httpcore.DefaultCloseTimeout
)

// Options configures New; a zero field means its default (see
// websocket.New). New copies it: later changes change nothing.
type Options struct {
	// Header is sent with every handshake; its values are masked.
	Header http.Header
	// BeforeConnect, if set, may change copies of the url and Header before
	// every attempt; what it sets is masked, and 401, 403 and 1008 retried.
	BeforeConnect func(ctx context.Context, u *url.URL, header http.Header) error
	// Replicas are more URLs of the same service, failed over to at once.
	Replicas []string
	// PublicQuery names the query keys whose values may be shown.
	PublicQuery       []string
	Subprotocols      []string    // offered in the handshake
	TLS               *tls.Config // for wss://; nil means Go's defaults
	EnableCompression bool        // permessage-deflate without context takeover

	// ReadLimit is the largest message in bytes: a larger one breaks the
	// connection, and three in a row at one place end the supervisor.
	ReadLimit    int64
	PingInterval time.Duration // between heartbeat pings
	PingTimeout  time.Duration // how long a ping waits for its pong
	// CloseTimeout bounds the goodbye: writing the close frame, and a
	// reader of this package waiting for the answer.
	CloseTimeout time.Duration
	// CloseHint is the least wait after a close 1012 or 1013 naming none.
	CloseHint time.Duration
	// WriteOnly says the program never reads: the adapter reads, on one
	// goroutine per connection, and a data message ends it (ErrUnexpectedData).
	WriteOnly bool

	OnConnect func(ctx context.Context, conn *websocket.Conn) error // after every connect, before Connected: subscribe again
	// Supervisor configures the supervisor; its Classify runs after this package's.
	Supervisor supervisor.Settings
}
