package gorilla

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/internal/redact"
)

// target is a parsed, checked URL with what it takes to keep its secrets
// out of errors.
type target struct {
	u        *url.URL      // what is dialed, credentials included; never changed
	redacted string        // safe to show
	secrets  redact.Target // masks the url's userinfo, its query values but the public ones, the headers' values
}

// parseTarget checks raw: a ws:// or wss:// URL with a host.
func parseTarget(raw string, public []string, header http.Header) (target, error) {
	return parseField("url", raw, public, header)
}

// parseField is parseTarget for the option field (url, Replicas[1]). Its
// errors are bad-option errors about field that show the URL only
// redacted, and a URL that does not parse not at all. The redactor knows
// every secret of the URL (its userinfo and every query value whose key
// is not in public) and the values of header, which the program set.
func parseField(field, raw string, public []string, header http.Header) (target, error) {
	if raw == "" {
		return target{}, opterr.New("gorilla", field, nil, "empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL itself
		}
		return target{}, opterr.New("gorilla", field, nil, "malformed: %s", redact.Text(err.Error()))
	}
	tg := redact.URL(u, public...).With(headerValues(header)...)
	redacted := tg.Shown()
	switch {
	case u.Scheme != "ws" && u.Scheme != "wss":
		return target{}, opterr.New("gorilla", field, redacted, "scheme %q is not ws or wss", u.Scheme)
	case u.Host == "":
		return target{}, opterr.New("gorilla", field, redacted, "no host")
	case strings.HasSuffix(u.Host, ":"):
		// wss://user:?pw@host parses as host "user:": a password with a
		// raw '?', '#' or '/' must be escaped.
		return target{}, opterr.New("gorilla", field, redacted, "empty port (escape '?', '#', '/' and '@' in a password)")
	}
	return target{u: u, redacted: redacted, secrets: tg}, nil
}

// headerValues returns every value of h and, for a value such as
// "Bearer T0KEN" or "Basic dXNlcjpwdw==", the credentials after the
// scheme too: a server may echo them alone.
func headerValues(h http.Header) []string {
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
