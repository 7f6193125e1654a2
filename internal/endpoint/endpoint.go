// Package endpoint checks the URL an HTTP-based adapter (websocket,
// gorilla, sse) is given — its url and each of its Replicas — and builds,
// by construction, what it takes to keep the URL's secrets out of every
// text: the shown form and a redact.Target.
package endpoint

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/internal/redact"
)

// URL is a checked URL.
type URL struct {
	Raw     string        // what is dialed, credentials included
	Parsed  *url.URL      // Raw parsed; never changed (clone it to change it)
	Public  []string      // the query keys whose values may be shown
	Shown   string        // safe to show: the Name, errors, logs, probes, metrics
	Secrets redact.Target // masks the URL's userinfo, its query values but the public ones, and the header's values
}

// Parse checks raw, the option field of package pkg: a URL with one of
// schemes and a host. Its errors are bad-option errors about field that
// show the URL only redacted, and a URL that does not parse not at all.
// The redactor knows every secret of the URL (its userinfo and every
// query value whose key is not in public) and the values of header, which
// the program set.
func Parse(pkg, field, raw string, schemes []string, public []string, header http.Header) (URL, error) {
	if raw == "" {
		return URL{}, opterr.New(pkg, field, nil, "empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL itself
		}
		return URL{}, opterr.New(pkg, field, nil, "malformed: %s", redact.Text(err.Error()))
	}
	tg := redact.URL(u, public...).With(HeaderValues(header)...)
	shown := tg.Shown()
	switch {
	case !slices.Contains(schemes, u.Scheme):
		return URL{}, opterr.New(pkg, field, shown, "scheme %q is not %s", u.Scheme, strings.Join(schemes, " or "))
	case u.Host == "":
		return URL{}, opterr.New(pkg, field, shown, "no host")
	case strings.HasSuffix(u.Host, ":"):
		// wss://user:?pw@host parses as host "user:": a password with a
		// raw '?', '#' or '/' must be escaped.
		return URL{}, opterr.New(pkg, field, shown, "empty port (escape '?', '#', '/' and '@' in a password)")
	}
	return URL{Raw: raw, Parsed: u, Public: slices.Clone(public), Shown: shown, Secrets: tg}, nil
}

// HeaderValues returns every value of h and, for a value such as
// "Bearer T0KEN" or "Basic dXNlcjpwdw==", the credentials after the
// scheme too: a server may echo them alone.
func HeaderValues(h http.Header) []string {
	var values []string
	for _, vs := range h {
		for _, v := range vs {
			values = append(values, v)
			if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
				values = append(values, strings.TrimSpace(cred))
			}
		}
	}
	return values
}

// Set is an adapter's url and its Replicas: its endpoints, in order.
type Set struct {
	URLs []URL // the url, then the Replicas
	// Base masks the secrets of every URL of the set and of the header.
	Base redact.Target
	// Named says that errors name the endpoint: there are several, or the
	// program chose a Name. Otherwise the Name is the url, shown, and an
	// error that repeated it would say it twice.
	Named bool
}

// ParseSet parses url (the field "url") and replicas (the fields
// "Replicas[i]") as Parse does; name is the supervisor's Name option.
func ParseSet(pkg, url string, replicas []string, schemes, public []string, header http.Header, name string) (Set, error) {
	u, err := Parse(pkg, "url", url, schemes, public, header)
	if err != nil {
		return Set{}, err
	}
	s := Set{URLs: []URL{u}, Base: u.Secrets}
	for i, r := range replicas {
		ru, err := Parse(pkg, "Replicas["+strconv.Itoa(i)+"]", r, schemes, public, header)
		if err != nil {
			return Set{}, err
		}
		s.URLs = append(s.URLs, ru)
		s.Base = s.Base.Join(ru.Secrets)
	}
	s.Named = len(s.URLs) > 1 || name != "" && name != u.Shown
	return s, nil
}

// Step names a step on endpoint i in errors: "dial", or `dial
// "wss://b/feed"` when errors name the endpoint.
func (s Set) Step(what string, i int) string {
	if !s.Named || i < 0 || i >= len(s.URLs) {
		return what
	}
	return what + " " + strconv.Quote(s.URLs[i].Shown)
}

// Shown returns every endpoint's shown form: the supervisor's Endpoints.
func (s Set) Shown() []string {
	out := make([]string, len(s.URLs))
	for i, u := range s.URLs {
		out[i] = u.Shown
	}
	return out
}
