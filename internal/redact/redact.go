// Package redact takes secrets out of text before it reaches an error, a
// log line, a Status, a probe body, a metric label or a page.
package redact

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"regexp"
	"strings"
)

// Mask replaces a secret in redacted text.
const Mask = "xxxxx"

var (
	urlPattern = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+`)
	// userinfo with a password, masked in the raw text before any URL is
	// parsed: a password with a raw '?', '#' or '@' fools url.Parse.
	userinfoPattern = regexp.MustCompile(`(://[^:/@\s?#]*:)[^\s/]*@`)
	// name=value secrets in DSNs, query strings, environment and log text.
	// The name may carry a prefix (sslpassword, DB_PASSWORD, api_token);
	// the value may be quoted.
	eqPattern = regexp.MustCompile(`(?i)\b([a-z0-9_.-]*(?:password|passwd|pwd|token|secret|apikey|api_key|signature|credential)|pass|key|sig|auth|authorization)(\s*=\s*)` + secretValue)
	// name: value secrets (headers, JSON, YAML) for the unambiguous names
	// only: "key: ..." is too common in ordinary messages.
	colonPattern = regexp.MustCompile(`(?i)(["']?)\b([a-z0-9_.-]*(?:password|passwd|token|secret|apikey|api_key|credential)|authorization|proxy-authorization)(["']?\s*:\s*)(?:(?:bearer|basic|token|digest)\s+)?` + secretValue)
)

// secretValue is a quoted or bare value.
const secretValue = `('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s&;,"'}]*)`

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

// Text removes credentials from text before it reaches an error, a log
// line or a readiness body:
//   - URLs keep their user name but lose the password
//     (postgres://user:xxxxx@host/db), and query parameters that hold
//     credentials (token, key, password, secret, signature, ...) are dropped;
//   - name=value pairs such as password=..., sslpassword='...',
//     DB_PASSWORD=... or api_token=... are masked, and so are the values of
//     "Authorization: Bearer ...", password: ... and JSON "token":"...";
//   - every non-empty string in secrets, and its URL-escaped forms, is masked
//     wherever it appears (a password with spaces or '@' included).
func Text(text string, secrets ...string) string {
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
	text = userinfoPattern.ReplaceAllString(text, "${1}"+Mask+"@")
	text = urlPattern.ReplaceAllStringFunc(text, redactURL)
	text = maskValues(eqPattern, text, 2, 3)
	return maskValues(colonPattern, text, 3, 4)
}

// maskValues replaces, in every match of re, what lies between the end of
// submatch after and the end of the value, submatch v, with Mask. A value
// that is Mask already keeps what follows it (the ':' or ')' that ends a
// clause), so that masking twice changes nothing.
func maskValues(re *regexp.Regexp, text string, after, v int) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[2*after+1], m[2*v+1]
		b.WriteString(text[last:start])
		b.WriteString(Mask)
		if value := text[m[2*v]:end]; strings.HasPrefix(value, Mask) && strings.Trim(value[len(Mask):], ":,.;)") == "" {
			b.WriteString(value[len(Mask):])
		}
		last = end
	}
	b.WriteString(text[last:])
	return b.String()
}

// redactURL masks the password of one URL and drops its credential
// parameters. Punctuation that ends the URL's sentence ("dial ws://h/x:
// refused") is not part of it.
func redactURL(raw string) string {
	trimmed := strings.TrimRight(raw, ":,.;)")
	return redactOneURL(trimmed) + raw[len(trimmed):]
}

func redactOneURL(raw string) string {
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
			masked := true // every value is masked already (a Target's shown form): keep the query as it is
			for k, vs := range q {
				for _, v := range vs {
					masked = masked && (v == Mask || v == "")
				}
				if sensitiveParam(k) && !(len(vs) == 1 && vs[0] == Mask) {
					q.Del(k)
				}
			}
			if !masked {
				u.RawQuery = q.Encode()
			}
		}
	}
	return u.String()
}

// Error returns an error whose text is Text(err.Error(), secrets...)
// and which still unwraps to err, so errors.Is and errors.As keep working.
// It returns nil for nil. Callers that must not keep err's chain (because a
// wrapped value holds a secret) build a new error from the redacted text instead.
func Error(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	if r, ok := err.(*redactedError); ok && len(secrets) == 0 {
		return r
	}
	return &redactedError{msg: Text(err.Error(), secrets...), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Scrubbed returns an error with text, which the caller has already
// redacted, that unwraps only to keep: errors known to hold no secret (a
// network error, a server's error code, context.Canceled). Use it instead
// of Error when a wrapped value holds a credential (a parsed config,
// a URL with its token) that errors.As or a reflective logger would reach.
func Scrubbed(text string, keep ...error) error { return &scrubbedError{text, keep} }

type scrubbedError struct {
	msg  string
	keep []error
}

func (e *scrubbedError) Error() string   { return e.msg }
func (e *scrubbedError) Unwrap() []error { return e.keep }

// SafeChain returns the parts of err's chain that are known to hold no
// URL, header or body — network and DNS errors (addresses only), context
// ends, EOF, a closed connection — for the keep of Scrubbed and
// Target.Error.
func SafeChain(err error) []error {
	var keep []error
	var op *net.OpError
	if errors.As(err, &op) {
		keep = append(keep, op)
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		keep = append(keep, dns)
	}
	for _, s := range []error{context.DeadlineExceeded, context.Canceled, io.EOF, io.ErrUnexpectedEOF, net.ErrClosed} {
		if errors.Is(err, s) {
			keep = append(keep, s)
		}
	}
	return keep
}
