package sse

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/supervisor"
)

// connector makes the streaming GET and reads the stream. It is a
// supervisor.Connector and supervisor.Watcher for *stream; a supervisor
// calls it from its own goroutine.
type connector struct {
	o       Options
	target  target   // the url: the supervisor's Name
	targets []target // the url, then the Replicas: the endpoints
	feed    *feed    // where the events go, and the position the next request resumes from
	// named says that errors name the endpoint: not when the supervisor's
	// Name is the redacted url already (one url and the default Name), so
	// that the url is not said twice.
	named bool
	// base masks the secrets of every endpoint and Header.
	base redact.Target
	// maxHint is the longest Retry-After honored (the supervisor's
	// MaxHint): a ResponseError shows what is honored, not the raw value.
	maxHint time.Duration

	mu     sync.Mutex
	latest redact.Target // the newest attempt's redactor, joined with base
}

// newConnector checks url and o and returns a connector. The url is
// checked first; a bad one or a bad option is an error naming it.
func newConnector(url string, o Options) (*connector, error) {
	t, err := parseTarget(url, o.PublicQuery, o.Header)
	if err != nil {
		return nil, err
	}
	targets := []target{t}
	secrets := t.secrets
	for i, r := range o.Replicas {
		rt, err := parseField(fmt.Sprintf("Replicas[%d]", i), r, o.PublicQuery, o.Header)
		if err != nil {
			return nil, err
		}
		targets = append(targets, rt)
		secrets = secrets.Join(rt.secrets)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	c := &connector{o: o, target: t, targets: targets, base: secrets, latest: secrets, maxHint: cmp.Or(o.Supervisor.MaxHint, supervisor.DefaultMaxHint)}
	// An error names the endpoint unless the Name already does: one url,
	// and the default Name, which is that url.
	c.named = len(targets) > 1 || o.Supervisor.Name != "" && o.Supervisor.Name != t.redacted
	c.feed = newFeed(o.Buffer, o.LastEventID)
	return c, nil
}

// step names an attempt's step in errors: "get", or `get "https://b/events"`
// when errors name the endpoint.
func (c *connector) step(what string, endpoint int) string {
	if !c.named {
		return what
	}
	return fmt.Sprintf("%s %q", what, c.targets[endpoint].redacted)
}

// replicas is the connector of several endpoints: the supervisor calls
// ConnectTo.
type replicas struct{ *connector }

// Endpoints returns the url and the Replicas, redacted.
func (r replicas) Endpoints() []string {
	out := make([]string, len(r.targets))
	for i, t := range r.targets {
		out[i] = t.redacted
	}
	return out
}

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
	target := c.targets[i]
	header := c.o.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	if c.o.BeforeConnect == nil {
		return target.raw, header, c.base, nil
	}
	u, err := url.Parse(target.raw) // parsed once already: it parses
	if err != nil {
		return "", nil, redact.Target{}, err
	}
	hookErr := c.o.BeforeConnect(ctx, u, header)
	t, err := parseTarget(u.String(), target.public, header)
	if err != nil {
		return "", nil, redact.Target{}, backoff.Permanent(fmt.Errorf("BeforeConnect: %w", err))
	}
	tg := c.base.Join(t.secrets)
	c.mu.Lock()
	c.latest = tg
	c.mu.Unlock()
	if hookErr != nil {
		return "", nil, tg, tg.Error(fmt.Errorf("BeforeConnect: %w", hookErr), safeChain(hookErr)...)
	}
	return t.raw, header, tg, nil
}
