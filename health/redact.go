package health

import (
	"net/url"
	"regexp"
	"strings"
)

// Mask replaces a secret in redacted text.
const Mask = "xxxxx"

var (
	urlPattern = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+`)
	// key=value secrets in DSNs, query strings and log text; the value may be quoted.
	kvPattern = regexp.MustCompile(`(?i)\b(password|passwd|pwd|pass|token|access_token|refresh_token|api_key|apikey|key|secret|client_secret|signature|sig|auth|authorization)(\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s&;,]*)`)
	// userinfo that url.Parse could not handle: scheme://user:secret@
	userinfoPattern = regexp.MustCompile(`(://[^:/@\s]*:)[^\s]*@`)
)

// sensitiveParam reports whether a query parameter named k holds a credential.
func sensitiveParam(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"token", "key", "password", "passwd", "pwd", "secret", "signature", "sig", "auth", "credential"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// Redact removes credentials from text before it reaches an error, a log
// line or a readiness body:
//   - URLs keep their user name but lose the password
//     (postgres://user:xxxxx@host/db), and query parameters that hold
//     credentials (token, key, password, secret, signature, ...) are dropped;
//   - key=value pairs such as password=... or token='...' are masked;
//   - every non-empty string in secrets, and its URL-escaped forms, is masked
//     wherever it appears (a password with spaces or '@' included).
func Redact(text string, secrets ...string) string {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, v := range []string{s, url.QueryEscape(s), url.PathEscape(s), url.UserPassword("", s).String()[1:]} {
			if v != "" && v != ":" {
				text = strings.ReplaceAll(text, v, Mask)
			}
		}
	}
	text = urlPattern.ReplaceAllStringFunc(text, redactURL)
	text = userinfoPattern.ReplaceAllString(text, "${1}"+Mask+"@")
	return kvPattern.ReplaceAllString(text, "${1}${2}"+Mask)
}

// redactURL masks the password of one URL and drops its credential parameters.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw // the patterns after this one still mask what they can
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), Mask)
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			u.RawQuery = "" // unparseable: keep nothing of it
		} else {
			for k := range q {
				if sensitiveParam(k) {
					q.Del(k)
				}
			}
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

// RedactError returns an error whose text is Redact(err.Error(), secrets...)
// and which still unwraps to err, so errors.Is and errors.As keep working.
// It returns nil for nil. Callers that must not keep err's chain (because a
// wrapped value holds a secret) build a new error from the redacted text instead.
func RedactError(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	if r, ok := err.(*redactedError); ok && len(secrets) == 0 {
		return r
	}
	return &redactedError{msg: Redact(err.Error(), secrets...), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
