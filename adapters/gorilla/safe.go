package gorilla

import (
	"errors"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/redact"
)

// safeWith returns err with tg's secrets masked in its text and in
// every text the server sent (a close frame's Text), and a chain that
// keeps only what holds no secret: the close error rebuilt with its text
// masked, a HandshakeError, this package's and gorilla/websocket's
// sentinels, network and context errors, and err's backoff marks. Every
// error the connector hands to the supervisor and every error Messages
// yields passes here, so what the server echoes of a token (`session
// SECRET123 expired`) reaches no Status, log line, probe body or returned
// error. An error whose text holds nothing to mask and no close error is
// returned as it is.
func safeWith(tg redact.Target, err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	var ce *websocket.CloseError
	hasClose := errors.As(err, &ce)
	if !hasClose && tg.Text(text) == text {
		return err
	}
	keep := redact.SafeChain(err)
	if hasClose {
		keep = append(keep, &websocket.CloseError{Code: ce.Code, Text: tg.Text(ce.Text)})
	}
	var he *HandshakeError
	if errors.As(err, &he) {
		keep = append(keep, he)
	}
	for _, s := range []error{ErrHeartbeat, ErrUnexpectedData, ErrReaderBusy, websocket.ErrReadLimit, websocket.ErrCloseSent, websocket.ErrBadHandshake} {
		if errors.Is(err, s) {
			keep = append(keep, s)
		}
	}
	return tg.Error(err, keep...)
}
