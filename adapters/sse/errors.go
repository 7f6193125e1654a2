package sse

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Errors of this package, checked with errors.Is.
var (
	// ErrIdleTimeout: the stream stayed silent, not even a keep-alive
	// comment, for longer than Options.IdleTimeout. The path or the server
	// is dead; the Client reconnects.
	ErrIdleTimeout = errors.New("stream silent for longer than IdleTimeout")
	// ErrEventTooLarge: an event was larger than Options.MaxEventSize.
	ErrEventTooLarge = errors.New("event larger than MaxEventSize")
)

// ResponseError is an answer the server gave instead of an event stream:
// a status other than 200 OK, or a 200 whose Content-Type is not
// text/event-stream. The response body is never read nor kept: it may
// echo the request's credentials or hold internal details.
type ResponseError struct {
	StatusCode  int           // the HTTP status, such as 204, 401 or 503
	ContentType string        // a 200's Content-Type, redacted and cut to 100 bytes; "" otherwise
	RetryAfter  time.Duration // a 429's or 503's Retry-After, clamped to the supervisor's MaxHint (what is honored); 0 when absent, unusable or in the past
}

func (e *ResponseError) Error() string {
	status := fmt.Sprintf("server answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	switch {
	case e.StatusCode == http.StatusOK && e.ContentType == "":
		return status + " with no Content-Type, not text/event-stream"
	case e.StatusCode == http.StatusOK:
		return fmt.Sprintf("%s with Content-Type %q, not text/event-stream", status, e.ContentType)
	case e.StatusCode == http.StatusNoContent:
		return status + ": the server ended the stream for good"
	case e.RetryAfter >= time.Second:
		return fmt.Sprintf("%s (Retry-After %v)", status, e.RetryAfter.Round(time.Second))
	case e.RetryAfter > 0: // clamped to a MaxHint under a second
		return fmt.Sprintf("%s (Retry-After %v)", status, e.RetryAfter)
	}
	return status
}
