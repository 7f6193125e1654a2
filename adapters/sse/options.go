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
	DefaultIdleTimeout = httpcore.DefaultIdleTimeout // 15s: a dead path is found within it
	DefaultReadLimit   = httpcore.DefaultReadLimit   // 1 MiB per event
	DefaultBuffer      = 64                          // events read ahead of the program
)

// Options configures New; a zero field means its default (see New). New
// copies it: later changes change nothing.
type Options struct {
	// Header is sent with every request; its values are masked. Accept,
	// Cache-Control and Last-Event-ID are the Client's own.
	Header http.Header
	// BeforeConnect, if set, may change copies of the url and Header before
	// every attempt; what it sets is masked, and 401 and 403 retried.
	BeforeConnect func(ctx context.Context, u *url.URL, header http.Header) error
	// Replicas are more URLs of the same service, sharing its event ids,
	// failed over to at once.
	Replicas []string
	// PublicQuery names the query keys whose values may be shown.
	PublicQuery []string
	TLS         *tls.Config // for https://; nil means Go's defaults

	// LastEventID is sent as Last-Event-ID on the first request: where a
	// program that persisted Client.LastEventID resumes. A control
	// character other than tab, which net/http refuses, is an error.
	LastEventID string
	// IdleTimeout is how long the stream may stay silent before it is
	// replaced: set it above the server's keep-alive interval.
	IdleTimeout time.Duration
	// ReadLimit is the largest event in bytes: a larger one breaks the
	// stream, and three in a row at one place end the Client.
	ReadLimit int64
	// Buffer is how many events the Client reads ahead of the program;
	// held full for IdleTimeout/3, it pauses the stream (ErrBehind).
	Buffer int

	// Supervisor configures the Client's supervisor; its Classify runs
	// after this package's. The stream is the Client's: no OnConnect.
	Supervisor supervisor.Settings
}
