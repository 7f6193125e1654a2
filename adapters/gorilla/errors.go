package gorilla

import "github.com/redial-go/redial/internal/httpcore"

// Errors of this package, checked with errors.Is. The websocket and sse
// adapters' errors of the same names are the same values.
var (
	// ErrHeartbeat, wrapping supervisor.ErrSilent: nothing came back from
	// the peer in time: a ping got
	// no pong within PingTimeout, or a read saw nothing (no pong, no
	// message) within PingInterval + PingTimeout. The peer is silent, or
	// nothing reads the connection (see Messages and WriteOnly).
	ErrHeartbeat = httpcore.ErrHeartbeat
	// ErrUnexpectedData: in WriteOnly mode the server sent a data message.
	ErrUnexpectedData = httpcore.ErrUnexpectedData
	// ErrReaderBusy: a loop over Messages found the connection read by
	// someone else — another loop over Messages, or the adapter itself in
	// WriteOnly mode. gorilla/websocket allows one reader at a time; the
	// loop yields this error once and ends.
	ErrReaderBusy = httpcore.ErrReaderBusy
)

// HandshakeError is a handshake the server answered with an HTTP status
// other than 101 Switching Protocols: StatusCode, RetryAfter (a 429's or
// 503's, clamped to the supervisor's MaxHint: what is honored) and, for a
// 200, ContentType. The response body is not kept: it may hold internal
// details. It is the same type as websocket's and sse's.
type HandshakeError = httpcore.HandshakeError
