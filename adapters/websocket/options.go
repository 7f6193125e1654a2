package websocket

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/supervisor"
)

// Defaults of Options.
const (
	DefaultReadLimit    = 1 << 20 // 1 MiB per message
	DefaultPingInterval = 20 * time.Second
	DefaultPingTimeout  = 10 * time.Second
	DefaultCloseHint    = 5 * time.Second
	DefaultCloseTimeout = time.Second
)

// Options configures a Connector and the Supervisor that New returns. The
// zero value of every field but URL means its documented default; New and
// NewConnector copy it.
type Options struct {
	// URL is the ws:// or wss:// address to dial. Credentials in it (a
	// user name and password, query parameters such as token, key,
	// password, secret, signature) are sent to the server but never appear
	// in an error, a log line or a Status. A '?', '#', '/' or '@' in a
	// password must be escaped.
	URL string
	// Header is sent with every handshake (Authorization, Origin, ...).
	Header http.Header
	// Subprotocols are offered in the handshake.
	Subprotocols []string
	// TLSConfig is used for wss:// URLs; nil means Go's defaults.
	TLSConfig *tls.Config

	// ReadLimit is the largest message, in bytes, that a read accepts; 0
	// means 1 MiB. A larger message fails the read (websocket.ErrMessageTooBig),
	// the connection is closed with 1009 and the supervisor reconnects:
	// memory stays bounded whatever the server sends.
	ReadLimit int64
	// PingInterval is the time between heartbeat pings; 0 means 20s.
	PingInterval time.Duration
	// PingTimeout is how long a ping waits for its pong; 0 means 10s. A
	// silent peer is found within PingInterval + PingTimeout.
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
	// the program must keep reading (see Read), or the heartbeat fails and
	// the connection is replaced.
	WriteOnly bool

	// Supervisor configures the supervisor New returns; see supervisor.New
	// for its defaults. An empty Name becomes the URL, redacted. Its
	// Classify, if set, runs after this package's Classify.
	Supervisor supervisor.Options[*websocket.Conn]
}

// MaxDuration is the longest PingInterval, PingTimeout, CloseTimeout or
// CloseHint accepted: more than a day is a mistake in a unit.
const MaxDuration = 24 * time.Hour

// validate checks every field and fills in the defaults.
func (o *Options) validate() error {
	if o.ReadLimit < 0 {
		return fmt.Errorf("websocket: ReadLimit %d is negative", o.ReadLimit)
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"PingInterval", o.PingInterval}, {"PingTimeout", o.PingTimeout}, {"CloseTimeout", o.CloseTimeout}, {"CloseHint", o.CloseHint}} {
		switch {
		case f.d < 0:
			return fmt.Errorf("websocket: %s %v is negative", f.name, f.d)
		case f.d > MaxDuration:
			return fmt.Errorf("websocket: %s %v is longer than %v", f.name, f.d, MaxDuration)
		}
	}
	if o.ReadLimit == 0 {
		o.ReadLimit = DefaultReadLimit
	}
	if o.PingInterval == 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.PingTimeout == 0 {
		o.PingTimeout = DefaultPingTimeout
	}
	if o.CloseTimeout == 0 {
		o.CloseTimeout = DefaultCloseTimeout
	}
	if o.CloseHint == 0 {
		o.CloseHint = DefaultCloseHint
	}
	o.Header = o.Header.Clone()
	o.Subprotocols = append([]string(nil), o.Subprotocols...)
	if o.TLSConfig != nil {
		o.TLSConfig = o.TLSConfig.Clone()
	}
	return nil
}
