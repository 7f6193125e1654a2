package httpcore

import (
	"errors"

	"github.com/redial-go/redial/internal/adapt"
)

// Errors the adapters export under the same names, checked with errors.Is.
var (
	// ErrHeartbeat: nothing came back from the peer in time: a ping got no
	// pong within PingTimeout. The peer is silent, or nothing reads the
	// connection.
	ErrHeartbeat = adapt.Silent("heartbeat failed")
	// ErrIdleTimeout: the stream stayed silent, not even a keep-alive
	// comment, for longer than IdleTimeout.
	ErrIdleTimeout = adapt.Silent("stream silent for longer than IdleTimeout")
	// ErrUnexpectedData: in WriteOnly mode the server sent a data message.
	ErrUnexpectedData = errors.New("unexpected data message in WriteOnly mode")
	// ErrReaderBusy: a loop over Messages found the connection read by
	// someone else: another loop, or the adapter itself in WriteOnly mode.
	ErrReaderBusy = errors.New("another reader owns the connection")
)
