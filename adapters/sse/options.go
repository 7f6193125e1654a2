package sse

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/url"
	"time"

	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/supervisor"
)

// Defaults of Options.
const (
	// DefaultIdleTimeout is how long a stream may stay silent, not even a
	// keep-alive comment, before it is treated as broken: a dead path is
	// found within 15s.
	DefaultIdleTimeout = httpcore.DefaultIdleTimeout
	DefaultReadLimit   = httpcore.DefaultReadLimit // 1 MiB per event
	DefaultBuffer      = 64                        // events read ahead of the program
)

// MaxDuration is the longest IdleTimeout accepted: more than a day is a
// mistake in a unit.
const MaxDuration = httpcore.MaxDuration

// Options configures the Client that New returns. The zero value of every
// field means its documented default; New copies it (Header, PublicQuery
// and TLS included), so changing it afterwards changes nothing.
type Options struct {
	// Header is sent with every request (Authorization, Cookie, ...). Its
	// values, and each name=value part of them, never appear in an error,
	// a log line or a Status: the program set them, so they may be
	// credentials. Accept, Cache-Control and Last-Event-ID are the
	// Client's own and replaced.
	Header http.Header
	// BeforeConnect, when set, is called before every attempt with copies
	// of the url and Header the request will use; it may change them (a
	// rotating token in the query or in Authorization). The values it sets
	// are masked like the url's and Header's, those of its last 16 calls
	// that set something new included, and so is its error's text. It is
	// called on the attempt's goroutine, bounded by ConnectTimeout. An
	// error from it fails the attempt (retried, unless it is
	// backoff.Permanent); a url it breaks fails it for good. With
	// BeforeConnect set, a request answered 401 or 403 is retried with the
	// backoff rather than given up on: the next attempt may carry new
	// credentials.
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
	// TLS is used for https:// URLs; nil means Go's defaults.
	TLS *tls.Config

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
	// ReadLimit is the largest event, in bytes on the wire, that a read
	// accepts; 0 means 1 MiB. A larger event fails the read
	// (ErrEventTooLarge) and the Client reconnects: memory stays bounded
	// whatever the server sends. One that breaks three streams in a row
	// at the same place (an event the server keeps in its history, so
	// that each stream resumes just before it) makes the Client give up.
	ReadLimit int64
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
