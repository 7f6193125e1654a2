package sse

import "github.com/redial-go/redial/internal/httpcore"

// spec is Server-Sent Events over net/http and go-sse to the core.
var spec = httpcore.Spec{
	Pkg:     "sse",
	Schemes: []string{"http", "https"},
	Verb:    "get",
	Want:    "text/event-stream",
	Item:    "an event",
	TooBig:  ErrEventTooLarge,
}

// Classify marks this transport's errors for the supervisor, as the
// Client New returns does but without BeforeConnect:
//
//   - 204 No Content: backoff.Permanent (the SSE specification: the
//     server says the stream is over, do not reconnect);
//   - 200 with a Content-Type other than text/event-stream: backoff.Permanent
//     (the url points at something that is not an event stream);
//   - 401, 403, 404: backoff.Permanent; with Options.BeforeConnect set, 401
//     and 403 are ordinary retries, since the next attempt may carry new
//     credentials;
//   - 429 and 503 with a usable Retry-After: backoff.RetryAfter with it;
//   - anything else: unchanged, an ordinary reconnect. A stream that ended
//     after a `retry:` field carries that hint already.
//
// An error already marked Permanent or carrying a hint is returned as is.
// Classify(nil) is nil.
func Classify(err error) error { return spec.Classify(err) }
