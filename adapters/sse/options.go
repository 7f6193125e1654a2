package sse

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

// Defaults of Options.
const (
	// DefaultIdleTimeout is how long a stream may stay silent, not even a
	// keep-alive comment, before it is treated as broken: a dead path is
	// found within 15s.
	DefaultIdleTimeout  = 15 * time.Second
	DefaultMaxEventSize = 1 << 20 // 1 MiB per event
	DefaultBuffer       = 64      // events read ahead of the program
)

// MaxDuration is the longest IdleTimeout accepted: more than a day is a
// mistake in a unit.
const MaxDuration = 24 * time.Hour

// Options configures the Client that New returns. The zero value of every
// field means its documented default; New copies it (Header, PublicQuery
// and TLSConfig included), so changing it afterwards changes nothing.
type Options struct {
	// Header is sent with every request (Authorization, ...). Its values
	// never appear in an error, a log line or a Status: the program set
	// them, so they may be credentials. Accept, Cache-Control and
	// Last-Event-ID are the Client's own and replaced.
	Header http.Header
	// BeforeConnect, when set, is called before every attempt with copies
	// of the url and Header the request will use; it may change them (a
	// rotating token in the query or in Authorization). The values it sets
	// are masked like the url's and Header's. An error from it fails the
	// attempt (retried, unless it is backoff.Permanent). With BeforeConnect
	// set, a request answered 401 or 403 is retried with the backoff rather
	// than given up on: the next attempt may carry new credentials.
	BeforeConnect func(ctx context.Context, u *url.URL, header http.Header) error
	// Replicas are more URLs of the same service (replicas behind no load
	// balancer, sharing the event ids). The Client tries url first; after a
	// failed attempt or a lost stream it goes to the next replica at once
	// (within the supervisor's FailoverSpread), and backs off only when
	// every one failed. Each request resumes from the same Last-Event-ID,
	// whichever replica it goes to. Status.Endpoint says which is in use.
	// Each is masked like url.
	Replicas []string
	// PublicQuery names the query keys of the url whose values may be
	// shown (in the default Name, errors, logs, probes and metrics). Every
	// other query value is masked wherever it appears, whatever its key's
	// name: ?jwt=..., ?ticket=..., ?sid=... are not guessed at.
	PublicQuery []string
	// TLSConfig is used for https:// URLs; nil means Go's defaults.
	TLSConfig *tls.Config

	// LastEventID is where the first connection resumes: sent as
	// Last-Event-ID on the first request, as every later request sends the
	// id of the last event the program received (see Client.LastEventID,
	// which a program that persists its position saves). "" means from
	// what the server sends a new client.
	LastEventID string
	// IdleTimeout is how long the stream may stay silent before it is
	// treated as broken and replaced; 0 means DefaultIdleTimeout (15s).
	// Servers send comment lines as keep-alives, which count as data: set
	// it above the server's keep-alive interval. Time the Client spends
	// waiting for the program to take an event does not count.
	IdleTimeout time.Duration
	// MaxEventSize is the largest event, in bytes on the wire, that a read
	// accepts; 0 means 1 MiB. A larger event fails the read
	// (ErrEventTooLarge) and the Client reconnects: memory stays bounded
	// whatever the server sends.
	MaxEventSize int
	// Buffer is how many events the Client reads ahead of the program; 0
	// means DefaultBuffer (64). When it is full the Client stops reading
	// until the program catches up. Events read but not yet delivered when
	// the stream breaks are dropped and fetched again (see Events).
	Buffer int

	// Supervisor configures the Client's supervisor; see supervisor.New
	// for its defaults. An empty Name becomes the url, redacted. Its
	// Classify, if set, runs after this package's. The connection itself
	// stays private, so there is no OnConnect.
	Supervisor supervisor.Settings
}

// validate checks every field but Supervisor (adapt.New checks those) and
// fills in the defaults. Its error is the first bad field's.
func (o *Options) validate() error {
	if err := opterr.Duration(pkg, "IdleTimeout", o.IdleTimeout, MaxDuration); err != nil {
		return err
	}
	switch {
	case o.MaxEventSize < 0:
		return opterr.New(pkg, "MaxEventSize", o.MaxEventSize, "negative")
	case o.Buffer < 0:
		return opterr.New(pkg, "Buffer", o.Buffer, "negative")
	case strings.ContainsAny(o.LastEventID, "\x00\r\n"):
		return opterr.New(pkg, "LastEventID", o.LastEventID, "contains a NUL, CR or LF")
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxEventSize == 0 {
		o.MaxEventSize = DefaultMaxEventSize
	}
	if o.Buffer == 0 {
		o.Buffer = DefaultBuffer
	}
	o.Header = o.Header.Clone()
	o.PublicQuery = append([]string(nil), o.PublicQuery...)
	o.Replicas = append([]string(nil), o.Replicas...)
	if o.TLSConfig != nil {
		o.TLSConfig = o.TLSConfig.Clone()
	}
	return nil
}
