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

// Options configures the Client that New returns. The zero value of every
// field means its documented default; New copies it (Header, PublicQuery
// and TLS included), so changing it afterwards changes nothing.
type Options struct {
	// Header is sent with every request; its values and their name=value
	// parts are masked wherever they appear. Accept, Cache-Control and
	// Last-Event-ID are the Client's own and replaced.
	Header http.Header
	// BeforeConnect, when set, may change copies of the url and Header
	// before every attempt (a rotating token); what its last 16 calls set,
	// and its error's text, are masked. It runs on the attempt's
	// goroutine; its error fails the attempt (for good when
	// backoff.Permanent). With it, 401 and 403 are retried with the
	// backoff rather than final.
	BeforeConnect func(ctx context.Context, u *url.URL, header http.Header) error
	// Replicas are more URLs of the same service sharing the event ids,
	// tried in turn after a failure, the backoff once per round; each
	// request resumes from the same Last-Event-ID, whichever it goes to.
	Replicas []string
	// PublicQuery names the query keys whose values may be shown; every
	// other query value is masked, whatever its key's name.
	PublicQuery []string
	// TLS is used for https:// URLs; nil means Go's defaults.
	TLS *tls.Config

	// LastEventID is where the first connection resumes: sent as
	// Last-Event-ID on the first request, as every later request sends the
	// id of the last event read (see Client.LastEventID, which a program
	// that persists its position saves). "" means from what the server
	// sends a new client.
	LastEventID string
	// IdleTimeout is how long the stream may stay silent before it is
	// treated as broken and replaced; 0 means DefaultIdleTimeout (15s).
	// Servers send comment lines as keep-alives, which count as data: set
	// it above the server's keep-alive interval. A program that holds the
	// read back for a third of it pauses the stream (see Buffer).
	IdleTimeout time.Duration
	// ReadLimit is the largest event, in bytes on the wire, that a read
	// accepts; 0 means 1 MiB. A larger event fails the read
	// (ErrEventTooLarge) and the Client reconnects: memory stays bounded
	// whatever the server sends. One that breaks three streams in a row
	// at the same place (an event the server keeps in its history, so
	// that each stream resumes just before it) makes the Client give up.
	ReadLimit int64
	// Buffer is how many events the Client reads ahead of the program; 0
	// means DefaultBuffer (64). When it is full the read waits, for
	// IdleTimeout/3 at most: then the stream is paused (ErrBehind) and
	// resumed once the program has taken half of it (see the package doc).
	Buffer int

	// Supervisor configures the Client's supervisor; see supervisor.New
	// for its defaults. An empty Name becomes the url, redacted. Its
	// Classify, if set, runs after this package's. The connection itself
	// stays private, so there is no OnConnect.
	Supervisor supervisor.Settings
}
