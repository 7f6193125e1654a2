package sse

import (
	"errors"

	"github.com/redial-go/redial/internal/httpcore"
)

// Errors of this package, checked with errors.Is.
var (
	// ErrIdleTimeout wraps supervisor.ErrSilent: the stream stayed silent,
	// not even a keep-alive comment, for longer than Options.IdleTimeout.
	ErrIdleTimeout = httpcore.ErrIdleTimeout
	// ErrEventTooLarge: an event was larger than Options.ReadLimit.
	ErrEventTooLarge = errors.New("event larger than ReadLimit")
	// ErrBehind: the program held the read back, the buffer full, for
	// IdleTimeout/3; the stream was paused and resumes after the last event.
	ErrBehind = errors.New("the program fell behind the stream")
)

// HandshakeError is an answer other than 200 text/event-stream:
// StatusCode, RetryAfter (as honored), ContentType (redacted, at most 100
// bytes); never the body. websocket's and gorilla's are the same type.
type HandshakeError = httpcore.HandshakeError
