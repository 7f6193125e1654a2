package websocket

import "github.com/redial-go/redial/internal/httpcore"

// Errors of this package, shared with gorilla and sse; check with errors.Is.
var (
	// ErrHeartbeat wraps supervisor.ErrSilent: a ping got no pong within
	// PingTimeout (the peer is silent, or nothing reads the connection).
	ErrHeartbeat = httpcore.ErrHeartbeat
	// ErrUnexpectedData: in WriteOnly mode the server sent a data message.
	ErrUnexpectedData = httpcore.ErrUnexpectedData
	// ErrReaderBusy: a second reader of the connection (see Messages).
	ErrReaderBusy = httpcore.ErrReaderBusy
)

// HandshakeError is a handshake answered other than 101: StatusCode,
// RetryAfter (as honored) and, for a 200, ContentType; never the body.
type HandshakeError = httpcore.HandshakeError
