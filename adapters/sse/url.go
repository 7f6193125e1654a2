package sse

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/internal/redact"
)

// pkg prefixes this package's bad-option errors.
const pkg = "sse"

// target is a parsed, checked URL with what it takes to keep its secrets
// out of errors.
type target struct {
	raw      string        // what is requested, credentials included
	public   []string      // the query keys whose values may be shown
	redacted string        // safe to show
	secrets  redact.Target // masks the url's userinfo, its query values but the public ones, the headers' values
}

// parseTarget checks raw: an http:// or https:// URL with a host. Its
// errors are bad-option errors about "url" that show it only redacted,
// and a URL that does not parse not at all. The redactor knows every
// secret of the url (its userinfo and every query value whose key is not
// in public) and the values of header, which the program set.
func parseTarget(raw string, public []string, header http.Header) (target, error) {
	return parseField("url", raw, public, header)
}

// parseField is parseTarget for the option field (url, Replicas[1]).
func parseField(field, raw string, public []string, header http.Header) (target, error) {
	if raw == "" {
		return target{}, opterr.New(pkg, field, nil, "empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL itself
		}
		return target{}, opterr.New(pkg, field, nil, "malformed: %s", redact.Text(err.Error()))
	}
	var values []string
	for _, vs := range header {
		values = append(values, vs...)
	}
	tg := redact.URL(u, public...).With(values...)
	redacted := tg.Shown()
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return target{}, opterr.New(pkg, field, redacted, "scheme %q is not http or https", u.Scheme)
	case u.Host == "":
		return target{}, opterr.New(pkg, field, redacted, "no host")
	case strings.HasSuffix(u.Host, ":"):
		// https://user:?pw@host parses as host "user:": a password with a
		// raw '?', '#' or '/' must be escaped.
		return target{}, opterr.New(pkg, field, redacted, "empty port (escape '?', '#', '/' and '@' in a password)")
	}
	return target{raw: raw, public: public, redacted: redacted, secrets: tg}, nil
}
