package sse

import (
	"cmp"
	"strings"
	"time"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

// Client keeps one Server-Sent Events stream alive: a supervisor over a
// streaming GET, whose Run, Status, Subscribe, Done, Err and Name it
// offers, and whose events the program reads with Events. Its connection,
// the *Stream, is the Client's to read. Its methods are safe for
// concurrent use.
type Client struct {
	*supervisor.Supervisor[*Stream]
	feed *feed
}

// New returns a Client for the event stream at url (http:// or https://),
// ready to Run: every attempt is a GET with Accept: text/event-stream and
// the Last-Event-ID of the last event read; the events are parsed by
// github.com/tmaxmax/go-sse and read with Events. A broken stream is
// replaced with backoff; the server's `retry:` lengthens every later wait.
// Run returns nil when its ctx ends, or the error (wrapping
// supervisor.ErrFailed) when the Client gives up: a 204, a 404, a 401 or
// 403 without BeforeConnect, an answer that is not an event stream, an
// event over ReadLimit that breaks three streams in a row at the same
// place, or MaxAttempts.
//
// Credentials in url (a user name and password, every query value but
// those of Options.PublicQuery), the values of Options.Header (each
// name=value part of them included) and those BeforeConnect sets are
// sent to the server but never appear in an error, a log line or a Status,
// even where the server echoes them. A '?', '#', '/' or '@' in a password
// must be escaped.
//
// The defaults of o: Header none, BeforeConnect none, Replicas none,
// PublicQuery none, TLS Go's, LastEventID "", IdleTimeout 15s (a dead
// path is found within 15s), ReadLimit 1 MiB, Buffer 64; the supervisor's
// own (Backoff Decorrelated with Base 1s and Cap 1 minute, StableAfter
// 30s, ConnectTimeout 10s, MaxAttempts 0, MaxHint 5 minutes, no Budget,
// no Classify but this package's, no Logger, FailoverSpread Base/2), and
// Name the redacted url. New copies o.
//
// A bad url or option is one error, wrapping supervisor.ErrInvalidOptions,
// that names it: `sse: IdleTimeout -1s: negative`, `sse: url: empty`,
// `sse: url "ftp://h": scheme "ftp" is not http or https`,
// `sse: Supervisor.ConnectTimeout -1s: negative`. It never holds url's
// credentials.
func New(url string, o Options) (*Client, error) {
	cfg := httpcore.Config{
		URL: url, Replicas: o.Replicas, PublicQuery: o.PublicQuery, Header: o.Header, BeforeConnect: o.BeforeConnect,
		TLS: o.TLS, ReadLimit: o.ReadLimit, IdleTimeout: o.IdleTimeout,
	}
	var f *feed
	r := &reconnection{}
	so := supervisor.Options[*Stream]{Settings: o.Supervisor}
	so.Classify = adapt.Chain(r.hint, o.Supervisor.Classify)
	sup, err := httpcore.New(&spec, cfg, so, func(c *httpcore.Core) (httpcore.Library[*Stream], error) {
		switch {
		case o.Buffer < 0:
			return nil, opterr.New(spec.Pkg, "Buffer", o.Buffer, "negative")
		case strings.ContainsAny(o.LastEventID, "\x00\r\n"):
			return nil, opterr.New(spec.Pkg, "LastEventID", o.LastEventID, "contains a NUL, CR or LF")
		}
		f = newFeed(cmp.Or(o.Buffer, DefaultBuffer), c.IdleTimeout/3, o.LastEventID)
		return &library{Core: c, feed: f, retry: r, timeout: cmp.Or(o.Supervisor.ConnectTimeout, supervisor.DefaultConnectTimeout)}, nil
	})
	if err != nil {
		return nil, err
	}
	return &Client{Supervisor: sup, feed: f}, nil
}

// Lag says how far behind the program is: the events and breaks the
// Client read that Events has not yielded yet, and how long the oldest has
// waited. It makes the Client a health.LagSource.
func (c *Client) Lag() health.Lag { return c.feed.lag(time.Now()) }
