package sse

import (
	"errors"

	"github.com/redial-go/redial/internal/httpcore"
)

// Errors of this package, checked with errors.Is.
var (
	// ErrIdleTimeout, wrapping supervisor.ErrSilent: the stream stayed
	// silent, not even a keep-alive
	// comment, for longer than Options.IdleTimeout. The path or the server
	// is dead; the Client reconnects.
	ErrIdleTimeout = httpcore.ErrIdleTimeout
	// ErrEventTooLarge: an event was larger than Options.ReadLimit.
	ErrEventTooLarge = errors.New("event larger than ReadLimit")
	// ErrBehind: the program held the read back, the buffer full, for
	// IdleTimeout/3; the stream was paused and resumes after the last event
	// read (a server that keeps no history skips what it sent meanwhile).
	ErrBehind = errors.New("the program fell behind the stream")
)

// HandshakeError is an answer the server gave instead of an event stream:
// a status other than 200 OK (StatusCode; RetryAfter for a 429 or 503,
// clamped to the supervisor's MaxHint: what is honored), or a 200 whose
// ContentType is not text/event-stream (redacted and cut to 100 bytes).
// The response body is never read nor kept: it may echo the request's
// credentials or hold internal details. It is the same type as
// websocket's and gorilla's.
type HandshakeError = httpcore.HandshakeError
