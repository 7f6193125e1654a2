package websocket

import (
	"errors"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/redact"
)

// safe returns err with the target's secrets masked in its text and in
// every text the server sent (a close reason), and a chain that keeps only
// what holds no secret: the close status with its reason masked, a
// HandshakeError, this package's sentinels, network and context errors.
// Every error the connector hands to the supervisor and every error
// Messages yields passes here, so what the server echoes of a token
// (`session SECRET123 expired`) reaches no Status, log line, probe body or
// returned error. An error whose text holds nothing to mask and no close
// reason is returned as it is.
func (c *connector) safe(err error) error { return safeWith(c.secrets(), err) }

// safeWith is safe with the redactor tg.
func safeWith(tg redact.Target, err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	var ce websocket.CloseError
	hasClose := errors.As(err, &ce)
	if !hasClose && tg.Text(text) == text {
		return err
	}
	keep := redact.SafeChain(err)
	if hasClose {
		ce.Reason = tg.Text(ce.Reason)
		keep = append(keep, ce)
	}
	var he *HandshakeError
	if errors.As(err, &he) {
		keep = append(keep, he)
	}
	for _, s := range []error{ErrHeartbeat, ErrUnexpectedData, websocket.ErrMessageTooBig} {
		if errors.Is(err, s) {
			keep = append(keep, s)
		}
	}
	return tg.Error(err, keep...)
}

// safeRead is safe for a read error of conn: with its connector's target
// when a connector of this package made conn, else the generic patterns.
func safeRead(conn *websocket.Conn, err error) error {
	if st := stateOf(conn); st != nil {
		return safeWith(st.secrets, err)
	}
	return redact.Error(err)
}
