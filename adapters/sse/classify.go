package sse

import "github.com/redial-go/redial/internal/httpcore"

var spec = httpcore.Spec{
	Pkg:     "sse",
	Schemes: []string{"http", "https"},
	Verb:    "get",
	Want:    "text/event-stream",
	Item:    "an event",
	TooBig:  ErrEventTooLarge,
}

// Classify marks this transport's errors as the Client's supervisor does,
// without BeforeConnect: 204, a 200 that is not text/event-stream, 401,
// 403 and 404 are permanent; 429 and 503 with Retry-After are hints; the
// rest is returned as is (a stream that ended after `retry:` carries that
// hint already).
func Classify(err error) error { return spec.Classify(err) }
