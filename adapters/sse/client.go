package sse

import (
	"context"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/supervisor"
)

// Client keeps one Server-Sent Events stream alive: a supervisor over a
// streaming GET whose events the program reads with Events. It offers the
// supervisor's Run, Status, Subscribe, Done, Err and Name; the stream
// itself stays private. Its methods are safe for concurrent use.
type Client struct {
	sup  *supervisor.Supervisor[*stream]
	feed *feed
}

// New returns a Client for the event stream at url (http:// or https://),
// ready to Run: every attempt is a GET with Accept: text/event-stream and
// the Last-Event-ID of the last event delivered; the events are parsed by
// github.com/tmaxmax/go-sse and read with Events. A broken stream is
// replaced with backoff; the server's `retry:` lengthens the next wait.
//
// Credentials in url (a user name and password, every query value but
// those of Options.PublicQuery) and the values of Options.Header and of
// BeforeConnect are sent to the server but never appear in an error, a
// log line or a Status. A '?', '#', '/' or '@' in a password must be
// escaped.
//
// The defaults of o: Header none, BeforeConnect none, Replicas none,
// PublicQuery none, TLSConfig Go's, LastEventID "", IdleTimeout 15s (a
// dead path is found within 15s), MaxEventSize 1 MiB, Buffer 64; the
// supervisor's own (Backoff Decorrelated with Base 1s and Cap 1 minute,
// StableAfter 30s, ConnectTimeout 10s, MaxAttempts 0, MaxHint 5 minutes,
// no Budget, no Classify but this package's, no Logger, FailoverSpread
// Base/2), and Name the redacted url. New copies o.
//
// A bad url or option is one error, wrapping supervisor.ErrInvalidOptions,
// that names it: `sse: IdleTimeout -1s: negative`, `sse: url: empty`,
// `sse: url "ftp://h": scheme "ftp" is not http or https`,
// `sse: Supervisor.ConnectTimeout -1s: negative`. It never holds url's
// credentials.
func New(url string, o Options) (*Client, error) {
	c, err := newConnector(url, o)
	if err != nil {
		return nil, err
	}
	sp := adapt.Spec{Pkg: pkg, Name: c.set.URLs[0].Shown, Classify: c.classify}
	var conn supervisor.Connector[*stream] = c
	if len(c.set.URLs) > 1 {
		conn = replicas{c}
	}
	sup, err := adapt.New(sp, conn, adapt.Options[*stream](o.Supervisor, nil))
	if err != nil {
		return nil, err
	}
	return &Client{sup: sup, feed: c.feed}, nil
}

// Run keeps the stream alive until ctx ends (it returns nil) or the
// Client gives up (it returns the error, wrapping supervisor.ErrFailed):
// a 204, a 404, a 401 or 403 without BeforeConnect, an answer that is not
// an event stream, or MaxAttempts. Run may be called once.
func (c *Client) Run(ctx context.Context) error { return c.sup.Run(ctx) }

// Status returns a snapshot of the stream's health.
func (c *Client) Status() health.Status { return c.sup.Status() }

// Subscribe returns the health channel; see supervisor.Supervisor.Subscribe.
func (c *Client) Subscribe() (<-chan health.Status, func()) { return c.sup.Subscribe() }

// Done returns a channel that is closed once Run has returned.
func (c *Client) Done() <-chan struct{} { return c.sup.Done() }

// Err returns what Run returned once Done is closed: nil when it stopped
// because its ctx ended, the error (wrapping supervisor.ErrFailed) when it
// gave up. Before that it returns nil.
func (c *Client) Err() error { return c.sup.Err() }

// Name returns the Client's name (Options.Supervisor.Name, or the url,
// redacted).
func (c *Client) Name() string { return c.sup.Name() }

// History returns the last transitions, oldest first; see
// supervisor.Supervisor.History. A Client is a health.HistorySource.
func (c *Client) History() []health.Transition { return c.sup.History() }
