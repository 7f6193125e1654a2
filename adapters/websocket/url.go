package websocket

import (
	"errors"
	"net/url"
	"strings"

	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/internal/redact"
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
// are bad-option errors about "url" that show it only redacted, and a
// URL that does not parse not at all.
func parseTarget(raw string) (target, error) {
	if raw == "" {
		return target{}, opterr.New("websocket", "url", nil, "empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL itself
		}
		return target{}, opterr.New("websocket", "url", nil, "malformed: %s", redact.Text(err.Error()))
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
		shown.User = url.User(redact.Mask)
		if name := u.User.Username(); len(name) >= minSecretName {
			secrets = append(secrets, name)
		}
	}
	redacted := redact.Text(shown.String(), secrets...)
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
		return target{}, opterr.New("websocket", "url", redacted, "scheme %q is not ws or wss", u.Scheme)
	case u.Host == "":
		return target{}, opterr.New("websocket", "url", redacted, "no host")
	case strings.HasSuffix(u.Host, ":"):
		// wss://user:?pw@host parses as host "user:": a password with a
		// raw '?', '#' or '/' must be escaped.
		return target{}, opterr.New("websocket", "url", redacted, "empty port (escape '?', '#', '/' and '@' in a password)")
	}
	return target{raw: raw, redacted: redacted, secrets: secrets}, nil
}

// redact removes the target's secrets, and any other credentials, from text.
func (t target) redact(text string) string { return redact.Text(text, t.secrets...) }
