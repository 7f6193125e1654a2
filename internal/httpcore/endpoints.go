package httpcore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/callback"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/internal/redact"
)

// endpoint is a checked url or replica, as a supervisor keeps it: each
// attempt parses raw again (a parsed URL kept per supervisor is 144 B).
type endpoint struct {
	raw   string // what is dialed, credentials included
	shown string // safe to show: the Name, errors, logs, probes, metrics
}

// checked is an endpoint as parseURL found it.
type checked struct {
	endpoint
	parsed  *url.URL      // raw parsed
	secrets redact.Target // the url's userinfo and query values but the public ones
}

// parseURL checks raw, the option field of sp's package: a URL with one of
// sp's schemes and a host. Its errors show the URL only redacted, and one
// that does not parse not at all.
func parseURL(sp *Spec, field, raw string, public []string) (checked, error) {
	if raw == "" {
		return checked{}, opterr.New(sp.Pkg, field, nil, "empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err // without the URL itself
		}
		return checked{}, opterr.New(sp.Pkg, field, nil, "malformed: %s", redact.Text(err.Error()))
	}
	tg := redact.URL(u, public...)
	shown := tg.Shown()
	switch {
	case !slices.Contains(sp.Schemes, u.Scheme):
		return checked{}, opterr.New(sp.Pkg, field, shown, "scheme %q is not %s", u.Scheme, strings.Join(sp.Schemes, " or "))
	case u.Host == "":
		return checked{}, opterr.New(sp.Pkg, field, shown, "no host")
	case strings.HasSuffix(u.Host, ":"):
		// wss://user:?pw@host parses as host "user:": a password with a
		// raw '?', '#' or '/' must be escaped.
		return checked{}, opterr.New(sp.Pkg, field, shown, "empty port (escape '?', '#', '/' and '@' in a password)")
	}
	return checked{endpoint{raw: raw, shown: shown}, u, tg}, nil
}

// endpoints are the url and the Replicas, in order.
type endpoints struct {
	list []endpoint
	// named says that errors name the endpoint: there are several, or the
	// program chose a Name. Otherwise the Name is the url, shown, and an
	// error that repeated it would say it twice.
	named bool
}

// parseEndpoints parses the url (the field "url") and the Replicas (the
// fields "Replicas[i]"); name is the supervisor's Name option. The secrets
// are every URL's and the header's.
func parseEndpoints(sp *Spec, cfg *Config, name string) (endpoints, redact.Target, error) {
	u, err := parseURL(sp, "url", cfg.URL, cfg.PublicQuery)
	if err != nil {
		return endpoints{}, redact.Target{}, err
	}
	e := endpoints{list: []endpoint{u.endpoint}}
	secrets := u.secrets.With(redact.HeaderValues(cfg.Header)...)
	for i, r := range cfg.Replicas {
		ru, err := parseURL(sp, "Replicas["+strconv.Itoa(i)+"]", r, cfg.PublicQuery)
		if err != nil {
			return endpoints{}, redact.Target{}, err
		}
		e.list = append(e.list, ru.endpoint)
		secrets = secrets.Join(ru.secrets)
	}
	e.named = len(e.list) > 1 || name != "" && name != u.shown
	return e, secrets, nil
}

// Step names a step on endpoint i in errors: "handshake", or `handshake
// "wss://b/feed"` when errors name the endpoint.
func (c *Core) Step(what string, i int) string {
	if !c.eps.named || i < 0 || i >= len(c.eps.list) {
		return what
	}
	return what + " " + strconv.Quote(c.eps.list[i].shown)
}

// Attempt is what one attempt dials.
type Attempt struct {
	Endpoint int
	URL      *url.URL    // with BeforeConnect the hook's; read only
	Raw      string      // URL as a string
	Header   http.Header // the attempt's own copy: the library may change it
}

// prepare returns what attempt on endpoint i dials. With BeforeConnect,
// called here on the attempt's goroutine, they are the hook's copies,
// checked again (a hook that breaks the url or sets a header the library
// sets fails the attempt for good), and the secret set remembers theirs.
func (c *Core) prepare(ctx context.Context, i int) (*Attempt, error) {
	e := c.eps.list[i]
	u, _ := url.Parse(e.raw) // it parsed in New
	a := &Attempt{Endpoint: i, URL: u, Raw: e.raw, Header: c.Header.Clone()}
	if a.Header == nil {
		a.Header = http.Header{}
	}
	if c.BeforeConnect == nil {
		return a, nil
	}
	hookErr := callback.Guard("BeforeConnect", func() error { return c.BeforeConnect(ctx, u, a.Header) }) // the attempt's own copies
	t, err := parseURL(c.Spec, "url", u.String(), c.PublicQuery)
	if err == nil {
		err = checkHeader(c.Spec, a.Header)
	}
	if err != nil {
		return nil, backoff.Permanent(fmt.Errorf("BeforeConnect: %w", err))
	}
	c.set.Remember(t.secrets.With(redact.HeaderValues(a.Header)...))
	if hookErr != nil {
		return nil, c.set.Error(fmt.Errorf("BeforeConnect: %w", hookErr), redact.SafeChain(hookErr)...)
	}
	a.URL, a.Raw = t.parsed, t.raw
	return a, nil
}
