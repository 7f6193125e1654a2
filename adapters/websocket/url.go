package websocket

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/redial-go/redial/health"
)

// minSecretName is the shortest user name masked in error text.
const minSecretName = 8

// target is a parsed, checked URL with what it takes to keep its secrets
// out of errors.
type target struct {
	raw      string   // what is dialed, credentials included
	redacted string   // safe to show
	secrets  []string // the password and credential query values, masked wherever they appear
}

// parseTarget checks raw: a ws:// or wss:// URL with a host. Its errors
// name the URL field and never repeat the URL.
func parseTarget(raw string) (target, error) {
	if raw == "" {
		return target{}, errors.New("websocket: URL is empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL itself
		}
		return target{}, fmt.Errorf("websocket: URL is malformed: %s", health.Redact(err.Error()))
	}
	var secrets []string
	if p, ok := u.User.Password(); ok && p != "" {
		secrets = append(secrets, p)
	}
	// In a ws URL the user name is basic auth or a token: a credential too.
	// The shown URL drops it; the text of errors masks it when it is long
	// enough to be a token (a short one would garble every message).
	shown := *u
	if u.User != nil {
		shown.User = url.User(health.Mask)
		if name := u.User.Username(); len(name) >= minSecretName {
			secrets = append(secrets, name)
		}
	}
	redacted := health.Redact(shown.String(), secrets...)
	if ru, err := url.Parse(redacted); err == nil {
		kept := ru.Query()
		for k, vs := range u.Query() {
			if !kept.Has(k) {
				for _, v := range vs {
					if v != "" {
						secrets = append(secrets, v)
					}
				}
			}
		}
	}
	switch {
	case u.Scheme != "ws" && u.Scheme != "wss":
		return target{}, fmt.Errorf("websocket: URL %q: scheme %q is not ws or wss", redacted, u.Scheme)
	case u.Host == "":
		return target{}, fmt.Errorf("websocket: URL %q has no host", redacted)
	case strings.HasSuffix(u.Host, ":"):
		// wss://user:?pw@host parses as host "user:": a password with a
		// raw '?', '#' or '/' must be escaped.
		return target{}, fmt.Errorf("websocket: URL %q has an empty port (escape '?', '#', '/' and '@' in a password)", redacted)
	}
	return target{raw: raw, redacted: redacted, secrets: secrets}, nil
}

// redact removes the target's secrets, and any other credentials, from text.
func (t target) redact(text string) string { return health.Redact(text, t.secrets...) }
