package gorilla

import (
	"errors"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/httpcore"
)

// spec is what gorilla/websocket is to the core.
var spec = httpcore.Spec{
	Pkg:      "gorilla",
	Schemes:  []string{"ws", "wss"},
	Verb:     "handshake",
	Want:     "a WebSocket upgrade",
	Item:     "a message",
	Reserved: httpcore.WebSocketHeaders,
	Codes: &httpcore.Codes{
		Of: func(err error) (int, string, bool) {
			if ce, ok := errors.AsType[*websocket.CloseError](err); ok {
				return ce.Code, ce.Text, true
			}
			return 0, "", false
		},
		New: func(code int, reason string) error { return &websocket.CloseError{Code: code, Text: reason} },
	},
	TooBig: websocket.ErrReadLimit,
	Keep:   []error{websocket.ErrCloseSent, websocket.ErrBadHandshake},
}

// Classify marks this transport's errors for the supervisor, as the
// supervisor New returns does but with the default CloseHint and without
// BeforeConnect; the classes are adapters/websocket's (see its Classify):
// handshake 200, 204, 401, 403, 404 and close 1008 permanent (401, 403 and
// 1008 retried with BeforeConnect), handshake 429 and 503 with Retry-After
// and close 1012 and 1013 hints, anything else an ordinary reconnect.
//
// An error already marked Permanent or carrying a hint is returned as is.
// Classify(nil) is nil.
func Classify(err error) error { return spec.Classify(err) }

// CloseStatus returns the close code in err's chain, such as
// websocket.CloseTryAgainLater, or -1 if there is none. It sees through
// the errors Messages yields, Status().Err and Run's error.
func CloseStatus(err error) int {
	if code, _, ok := spec.Codes.Of(err); ok {
		return code
	}
	return -1
}
