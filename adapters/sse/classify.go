package sse

import (
	"errors"
	"net/http"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/statuscode"
)

// classify marks this transport's errors for the supervisor:
//
//   - 204 No Content: backoff.Permanent (the SSE specification: the
//     server says the stream is over, do not reconnect);
//   - 200 with a Content-Type other than text/event-stream: backoff.Permanent
//     (the url points at something that is not an event stream);
//   - 401, 403, 404: backoff.Permanent, except 401 and 403 when rotating
//     (Options.BeforeConnect is set): an ordinary retry, since the next
//     attempt may carry new credentials;
//   - 429 and 503 with a usable Retry-After: backoff.RetryAfter with it;
//   - a stream that ended after a `retry:` field came with the hint
//     already (see Watch);
//   - anything else: unchanged, an ordinary reconnect.
//
// An error already marked Permanent or carrying a hint is returned as is.
func classify(err error, rotating bool) error {
	if err == nil || statuscode.Classified(err) {
		return err
	}
	var re *ResponseError
	if errors.As(err, &re) {
		switch re.StatusCode {
		case http.StatusOK, http.StatusNoContent:
			return backoff.Permanent(err)
		case http.StatusUnauthorized, http.StatusForbidden:
			if rotating {
				return err
			}
		}
		return statuscode.HTTP(err, re.StatusCode, re.RetryAfter)
	}
	return err
}
