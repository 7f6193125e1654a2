package websocket

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/redial-go/redial/health"
)

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
	redacted := health.Redact(u.String(), secrets...)
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
	}
	return target{raw: raw, redacted: redacted, secrets: secrets}, nil
}

// redact removes the target's secrets, and any other credentials, from text.
func (t target) redact(text string) string { return health.Redact(text, t.secrets...) }
