package sse

import (
	"cmp"
	"time"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

// Client keeps one Server-Sent Events stream alive: Events, LastEventID
// and Lag, and its supervisor's Run, Status, Subscribe, Done, Err, Name,
// History and RetryNow. Its methods are safe for concurrent use.
type Client struct {
	lifecycle
	feed *feed
}

// lifecycle is what a Client offers of its supervisor.
type lifecycle = adapt.Lifecycle[*stream]

// New returns a Client for the event stream at url (http:// or https://),
// ready to Run. Defaults: IdleTimeout 15s, ReadLimit 1 MiB, Buffer 64,
// LastEventID "", supervisor.New's, Name the url redacted. Run returns nil
// when its ctx ends, or an error wrapping supervisor.ErrFailed when the
// Client gives up. No error, log or Status holds url's credentials, a
// query value not in PublicQuery or a header value, even echoed.
func New(url string, o Options) (*Client, error) {
	cfg := httpcore.Config{
		URL: url, Replicas: o.Replicas, PublicQuery: o.PublicQuery, Header: o.Header, BeforeConnect: o.BeforeConnect,
		TLS: o.TLS, ReadLimit: o.ReadLimit, IdleTimeout: o.IdleTimeout,
	}
	var (
		f *feed
		l *library
	)
	r := &reconnection{}
	so := supervisor.Options[*stream]{Settings: o.Supervisor}
	so.Classify = adapt.Chain(r.hint, o.Supervisor.Classify)
	sup, err := httpcore.New(&spec, cfg, so, func(c *httpcore.Core) (httpcore.Library[*stream], error) {
		switch {
		case o.Buffer < 0:
			return nil, opterr.New(spec.Pkg, "Buffer", o.Buffer, "negative")
		case !httpcore.ValidHeaderValue(o.LastEventID):
			return nil, opterr.New(spec.Pkg, "LastEventID", o.LastEventID, "contains a control character other than tab, which net/http refuses in a header value")
		}
		f = newFeed(cmp.Or(o.Buffer, DefaultBuffer), c.IdleTimeout/3, o.LastEventID)
		l = &library{Core: c, feed: f, retry: r, timeout: cmp.Or(o.Supervisor.ConnectTimeout, supervisor.DefaultConnectTimeout), logger: o.Supervisor.Logger}
		return l, nil
	})
	if err != nil {
		return nil, err
	}
	l.name = sup.Name()
	return &Client{lifecycle: adapt.Lift(sup), feed: f}, nil
}

// Lag says how far behind Events the program is; it makes the Client a
// health.LagSource.
func (c *Client) Lag() health.Lag { return c.feed.lag(time.Now()) }
