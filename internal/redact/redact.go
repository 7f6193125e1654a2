// Package redact takes secrets out of text before it reaches an error, a
// log line, a Status, a probe body, a metric label or a page.
package redact

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"
)

// Mask replaces a secret in redacted text.
const Mask = "xxxxx"

// Text removes credentials from text before it reaches an error, a log
// line or a readiness body:
//   - every non-empty string in secrets, and its URL-escaped forms, is masked
//     wherever it appears (a password with spaces or '@' included);
//   - URLs keep their user name but lose the password
//     (postgres://user:xxxxx@host/db), and query parameters that hold
//     credentials (token, key, password, secret, signature, ...) are dropped;
//   - name=value pairs such as password=..., sslpassword='...',
//     DB_PASSWORD=... or api_token=... are masked, and so are the values of
//     "Authorization: Bearer ...", password: ... and JSON "token":"...".
func Text(text string, secrets ...string) string {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, v := range forms(s) {
			text = strings.ReplaceAll(text, v, Mask)
		}
	}
	return guess(text)
}

// guess masks what the heuristics find: no secret of text is known.
func guess(text string) string {
	text = maskUserinfo(text)
	text = maskURLs(text)
	text = maskAssignments(text, '=')
	return maskAssignments(text, ':')
}

// forms returns s and the forms a transport derives from it: its URL
// encodings in a query, a path and a userinfo.
func forms(s string) []string {
	out := []string{s}
	for _, v := range []string{url.QueryEscape(s), url.PathEscape(s), url.UserPassword("", s).String()[1:]} {
		if v != ":" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
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
