package websocket

import (
	"context"
	"fmt"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/supervisor"
)

// Read waits for s's live connection and reads one whole message from it
// (at most ReadLimit bytes). When the read fails, Read reports the failure
// to s (Invalidate, so that Classify sees its close status, and the
// supervisor reconnects at once instead of at the next heartbeat) and
// returns the error; the next call waits for the next connection, whose
// subscriptions OnConnect has re-sent. A failed Read means messages may have
// been missed.
//
// Call Read in a loop from one goroutine: it is what sees the heartbeat's
// pongs, so a program that stops calling it for longer than PingTimeout
// loses its connection (ErrHeartbeat). Hand slow work to another goroutine.
// Once the supervisor is done, Read returns an error wrapping
// supervisor.ErrStopped or supervisor.ErrFailed: stop reading then.
//
// As with coder/websocket, a ctx that ends during a read closes the
// connection at once, without the close handshake: do not use per-read
// timeouts, and to leave politely (1000) end Run's ctx first and this ctx
// after Run returned; Run's close ends the Read in progress.
//
// A program that reads with its own loop over the *websocket.Conn from
// s.Conn must do the same: call s.Invalidate(conn, err) when a read fails.
func Read(ctx context.Context, s *supervisor.Supervisor[*websocket.Conn]) (websocket.MessageType, []byte, error) {
	conn, err := s.Conn(ctx)
	if err != nil {
		return 0, nil, err
	}
	typ, b, err := conn.Read(ctx)
	if err != nil {
		s.Invalidate(conn, err)
		return 0, nil, fmt.Errorf("websocket read: %w", err)
	}
	return typ, b, nil
}
