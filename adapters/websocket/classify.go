package websocket

import (
	"errors"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/httpcore"
)

var spec = httpcore.WebSocketSpec("websocket", &httpcore.Codes{
	Of: func(err error) (int, string, bool) {
		ce, ok := errors.AsType[websocket.CloseError](err)
		return int(ce.Code), ce.Reason, ok
	},
	New: func(code int, reason string) error {
		return websocket.CloseError{Code: websocket.StatusCode(code), Reason: reason}
	},
}, websocket.ErrMessageTooBig)

// Classify marks this transport's errors as New's supervisor does, with
// the default CloseHint and without BeforeConnect: handshake 200, 204, 401,
// 403, 404 and close 1008 are permanent; handshake 429 and 503 with
// Retry-After, and close 1012 and 1013 ("retry-after=N" seconds in the
// reason, else CloseHint), are hints; the rest is returned as is.
func Classify(err error) error { return spec.Classify(err) }

// CloseStatus returns the close code in err's chain (Messages', Status().Err's, Run's), or -1.
func CloseStatus(err error) websocket.StatusCode { return websocket.CloseStatus(err) }
