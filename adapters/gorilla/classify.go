package gorilla

import (
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/statuscode"
)

// Classify marks this transport's errors for the supervisor, with the
// default CloseHint and without BeforeConnect (the supervisor New returns
// uses Options.CloseHint and Options.BeforeConnect):
//
//   - handshake 401, 403, 404: backoff.Permanent (the URL or the
//     credentials are wrong; retrying will not fix them);
//   - handshake 429 or 503 with a usable Retry-After: backoff.RetryAfter
//     with that delay (the supervisor clamps it to MaxHint);
//   - close 1008 (policy violation): backoff.Permanent;
//   - close 1012 (service restart) and 1013 (try again later):
//     backoff.RetryAfter with the delay the close reason names
//     ("retry-after=N", N whole seconds), else CloseHint (the supervisor
//     New returns draws it from [CloseHint, 1.5*CloseHint) with its own
//     generator, so that a fleet sent away at once does not come back at
//     once);
//   - anything else, including close 1000, 1001 and 1006: unchanged, an
//     ordinary reconnect.
//
// With Options.BeforeConnect set, 401 and 403 are ordinary retries: the
// next attempt may carry new credentials.
//
// An error already marked Permanent or carrying a hint is returned as is.
// Classify(nil) is nil.
func Classify(err error) error {
	return classify(err, func() time.Duration { return DefaultCloseHint }, false)
}

// CloseStatus returns the close code in err's chain, such as
// websocket.CloseTryAgainLater, or -1 if there is none. It sees through
// the errors Messages yields, Status().Err and Run's error.
func CloseStatus(err error) int {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return -1
}

// classify classifies err; closeHint gives the wait after a 1012 or 1013
// whose reason names none; retryAuth makes 401 and 403 ordinary retries.
func classify(err error, closeHint func() time.Duration, retryAuth bool) error {
	if err == nil || statuscode.Classified(err) {
		return err
	}
	var he *HandshakeError
	if errors.As(err, &he) {
		if retryAuth && (he.StatusCode == http.StatusUnauthorized || he.StatusCode == http.StatusForbidden) {
			return err
		}
		return statuscode.HTTP(err, he.StatusCode, he.RetryAfter)
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return statuscode.Close(err, ce.Code, ce.Text, closeHint)
	}
	return err
}
