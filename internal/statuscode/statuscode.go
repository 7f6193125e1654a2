// Package statuscode is the classification that every HTTP-based adapter
// shares (adapters/websocket, adapters/gorilla, adapters/sse): what an
// HTTP status and a WebSocket close code mean for the supervisor. The
// adapters keep their own error types and call these with the numbers.
package statuscode

import (
	"net/http"
	"strings"
	"time"

	"github.com/redial-go/redial/backoff"
)

// HTTP classifies err, whose cause is an HTTP answer with status code
// status and, for 429 and 503, Retry-After retryAfter (0 when none):
//
//   - 401, 403, 404: backoff.Permanent (the URL or the credentials are
//     wrong; retrying will not fix them);
//   - 429 and 503 with a usable Retry-After: backoff.RetryAfter with it,
//     spread over the second it names (Spread);
//   - anything else: err unchanged, an ordinary retry.
func HTTP(err error, status int, retryAfter time.Duration) error {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return backoff.Permanent(err)
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		if retryAfter > 0 {
			return backoff.RetryAfter(err, spread(retryAfter))
		}
	}
	return err
}

// WebSocket close codes that mean something to the supervisor (RFC 6455
// and the IANA registry).
const (
	ClosePolicyViolation = 1008
	CloseServiceRestart  = 1012
	CloseTryAgainLater   = 1013
)

// Close classifies err, whose cause is a WebSocket close frame with code
// and reason:
//
//   - 1008 (policy violation): backoff.Permanent;
//   - 1012 (service restart) and 1013 (try again later): backoff.RetryAfter
//     with the delay the reason names ("retry-after=N", N whole seconds),
//     spread as a Retry-After is, else closeHint();
//   - anything else, including 1000, 1001 and 1006: err unchanged.
func Close(err error, code int, reason string, closeHint func() time.Duration) error {
	switch code {
	case ClosePolicyViolation:
		return backoff.Permanent(err)
	case CloseServiceRestart, CloseTryAgainLater:
		if d, ok := ReasonHint(reason); ok {
			return backoff.RetryAfter(err, spread(d))
		}
		return backoff.RetryAfter(err, closeHint())
	}
	return err
}

// ReasonHint reads "retry-after=N" (or "Retry-After: N"), N whole seconds
// greater than 0, anywhere in a close reason. Like the header, a huge N
// saturates and the supervisor clamps it to MaxHint.
func ReasonHint(reason string) (time.Duration, bool) {
	const name = "retry-after"
	for i := 0; i+len(name) <= len(reason); i++ {
		if !strings.EqualFold(reason[i:i+len(name)], name) || i > 0 && isWord(reason[i-1]) {
			continue
		}
		j := skipSpace(reason, i+len(name))
		if j == len(reason) || reason[j] != '=' && reason[j] != ':' {
			continue
		}
		j = skipSpace(reason, j+1)
		k := j
		for k < len(reason) && '0' <= reason[k] && reason[k] <= '9' {
			k++
		}
		if k == j || k < len(reason) && isWord(reason[k]) {
			continue
		}
		d := RetryAfter(reason[j:k], time.Time{})
		return d, d > 0
	}
	return 0, false
}

func skipSpace(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\n\f\r", s[i]) >= 0 {
		i++
	}
	return i
}

func isWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// Classified reports whether err already carries a class: Permanent, or a
// hint. Adapters return such an error as it is.
func Classified(err error) bool {
	if backoff.IsPermanent(err) {
		return true
	}
	_, ok := backoff.RetryAfterHint(err)
	return ok
}
