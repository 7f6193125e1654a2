package websocket

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Errors of this package, checked with errors.Is.
var (
	// ErrHeartbeat: a ping got no pong within PingTimeout. The peer is
	// silent, or nothing reads the connection (see Messages and WriteOnly).
	ErrHeartbeat = errors.New("heartbeat failed")
	// ErrUnexpectedData: in WriteOnly mode the server sent a data message.
	ErrUnexpectedData = errors.New("unexpected data message in WriteOnly mode")
)

// HandshakeError is a handshake the server answered with an HTTP status
// other than 101 Switching Protocols. The response body is not kept: it may
// hold internal details.
type HandshakeError struct {
	StatusCode int           // the HTTP status, such as 401 or 503
	RetryAfter time.Duration // from Retry-After, clamped to the supervisor's MaxHint (what is honored); 0 when absent, unusable or in the past
}

func (e *HandshakeError) Error() string {
	s := fmt.Sprintf("handshake: server answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (Retry-After %v)", e.RetryAfter.Round(time.Second))
	}
	return s
}
