package websocket

import (
	"errors"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/statuscode"
)

// Classify marks this transport's errors for the supervisor, with the
// default CloseHint (the supervisor New returns uses Options.CloseHint):
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
// An error already marked Permanent or carrying a hint is returned as is.
// Classify(nil) is nil.
func Classify(err error) error {
	return classify(err, func() time.Duration { return DefaultCloseHint }, false)
}

// CloseStatus returns the close code in err's chain, such as
// websocket.StatusTryAgainLater, or -1 if there is none. It sees through
// the errors Messages yields, Status().Err and Run's error.
func CloseStatus(err error) websocket.StatusCode { return websocket.CloseStatus(err) }

// classify classifies err; closeHint gives the wait after a 1012 or 1013
// whose reason names none. With rotating (Options.BeforeConnect is set) a
// handshake answered 401 or 403 is an ordinary retry: the next attempt
// may carry new credentials.
func classify(err error, closeHint func() time.Duration, rotating bool) error {
	if err == nil || statuscode.Classified(err) {
		return err
	}
	var he *HandshakeError
	if errors.As(err, &he) {
		if rotating && (he.StatusCode == http.StatusUnauthorized || he.StatusCode == http.StatusForbidden) {
			return err
		}
		return statuscode.HTTP(err, he.StatusCode, he.RetryAfter)
	}
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return statuscode.Close(err, int(ce.Code), ce.Reason, closeHint)
	}
	return err
}
