package websocket

import (
	"errors"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/httpcore"
)

// spec is what coder/websocket is to the core.
var spec = httpcore.Spec{
	Pkg:      "websocket",
	Schemes:  []string{"ws", "wss"},
	Verb:     "handshake",
	Want:     "a WebSocket upgrade",
	Item:     "a message",
	Reserved: httpcore.WebSocketHeaders,
	Codes: &httpcore.Codes{
		Of: func(err error) (int, string, bool) {
			ce, ok := errors.AsType[websocket.CloseError](err)
			return int(ce.Code), ce.Reason, ok
		},
		New: func(code int, reason string) error {
			return websocket.CloseError{Code: websocket.StatusCode(code), Reason: reason}
		},
	},
	TooBig: websocket.ErrMessageTooBig,
}

// Classify marks this transport's errors for the supervisor, as the
// supervisor New returns does but with the default CloseHint and without
// BeforeConnect:
//
//   - handshake 401, 403, 404: backoff.Permanent (the URL or the
//     credentials are wrong; retrying will not fix them); with
//     Options.BeforeConnect set, 401 and 403 are ordinary retries;
//   - handshake 200 or 204 (the url is no WebSocket): backoff.Permanent;
//   - handshake 429 or 503 with a usable Retry-After: backoff.RetryAfter
//     with that delay (the supervisor clamps it to MaxHint);
//   - close 1008 (policy violation): backoff.Permanent; with
//     BeforeConnect, an ordinary retry (the next token may be accepted);
//   - close 1012 (service restart) and 1013 (try again later):
//     backoff.RetryAfter with the delay the close reason names
//     ("retry-after=N", N whole seconds), else CloseHint (the supervisor
//     New returns draws it from [CloseHint, 1.5*CloseHint));
//   - anything else, including close 1000, 1001 and 1006: unchanged, an
//     ordinary reconnect.
//
// An error already marked Permanent or carrying a hint is returned as is.
// Classify(nil) is nil.
func Classify(err error) error { return spec.Classify(err) }

// CloseStatus returns the close code in err's chain, such as
// websocket.StatusTryAgainLater, or -1 if there is none. It sees through
// the errors Messages yields, Status().Err and Run's error.
func CloseStatus(err error) websocket.StatusCode { return websocket.CloseStatus(err) }
