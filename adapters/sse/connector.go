package sse

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/endpoint"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/supervisor"
)

// connector makes the streaming GET and reads the stream. It is a
// supervisor.Connector and supervisor.Watcher for *stream; a supervisor
// calls it from its own goroutine.
type connector struct {
	o    Options
	set  endpoint.Set // the url, then the Replicas: the endpoints
	feed *feed        // where the events go, and the position the next request resumes from
	// maxHint is the longest Retry-After honored (the supervisor's
	// MaxHint): a ResponseError shows what is honored, not the raw value.
	maxHint time.Duration

	mu     sync.Mutex
	latest redact.Target // the newest attempt's redactor, joined with set.Base
}

// newConnector checks url and o and returns a connector. The url is
// checked first; a bad one or a bad option is an error naming it.
func newConnector(url string, o Options) (*connector, error) {
	set, err := endpoint.ParseSet(pkg, url, o.Replicas, schemes, o.PublicQuery, o.Header, o.Supervisor.Name)
	if err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	c := &connector{o: o, set: set, latest: set.Base, maxHint: cmp.Or(o.Supervisor.MaxHint, supervisor.DefaultMaxHint)}
	c.feed = newFeed(o.Buffer, o.LastEventID)
	return c, nil
}

// step names an attempt's step in errors: "get", or `get "https://b/events"`
// when errors name the endpoint.
func (c *connector) step(what string, i int) string { return c.set.Step(what, i) }

// replicas is the connector of several endpoints: the supervisor calls
// ConnectTo.
type replicas struct{ *connector }

// Endpoints returns the url and the Replicas, redacted.
func (r replicas) Endpoints() []string { return r.set.Shown() }

// ConnectTo makes one attempt on endpoint i.
func (r replicas) ConnectTo(ctx context.Context, i int) (*stream, error) {
	return r.connectTo(ctx, i)
}

// classify is the package's classes on err made safe first: it is the
// first step of the supervisor's Classify, which sees every error of
// Connect and Watch.
func (c *connector) classify(err error) error {
	return classify(c.safe(err), c.o.BeforeConnect != nil)
}

// secrets returns the redactor of the newest attempt.
func (c *connector) secrets() redact.Target {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.latest
}

// prepare returns what this attempt requests: the url, a header of its
// own and the redactor that knows both. With BeforeConnect they are the
// hook's copies, checked again (a hook that breaks the url fails the
// attempt for good), and the connector's newest redactor learns their
// secrets.
func (c *connector) prepare(ctx context.Context, i int) (string, http.Header, redact.Target, error) {
	target := c.set.URLs[i]
	header := c.o.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	if c.o.BeforeConnect == nil {
		return target.Raw, header, c.set.Base, nil
	}
	u := *target.Parsed
	hookErr := c.o.BeforeConnect(ctx, &u, header)
	t, err := endpoint.Parse(pkg, "url", u.String(), schemes, target.Public, header)
	if err != nil {
		return "", nil, redact.Target{}, backoff.Permanent(fmt.Errorf("BeforeConnect: %w", err))
	}
	tg := c.set.Base.Join(t.Secrets)
	c.mu.Lock()
	c.latest = tg
	c.mu.Unlock()
	if hookErr != nil {
		return "", nil, tg, tg.Error(fmt.Errorf("BeforeConnect: %w", hookErr), redact.SafeChain(hookErr)...)
	}
	return t.Raw, header, tg, nil
}
