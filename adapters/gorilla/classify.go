package gorilla

import (
	"errors"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/httpcore"
)

var spec = httpcore.WebSocketSpec("gorilla", &httpcore.Codes{
	Of: func(err error) (int, string, bool) {
		if ce, ok := errors.AsType[*websocket.CloseError](err); ok {
			return ce.Code, ce.Text, true
		}
		return 0, "", false
	},
	New: func(code int, reason string) error { return &websocket.CloseError{Code: code, Text: reason} },
}, websocket.ErrReadLimit, websocket.ErrCloseSent, websocket.ErrBadHandshake)

// Classify marks this transport's errors as New's supervisor does, with
// the default CloseHint and without BeforeConnect: adapters/websocket's
// Classify says the classes.
func Classify(err error) error { return spec.Classify(err) }

// CloseStatus returns the close code in err's chain (an error of
// Messages, Status().Err, Run's), or -1 if there is none.
func CloseStatus(err error) int {
	if code, _, ok := spec.Codes.Of(err); ok {
		return code
	}
	return -1
}
