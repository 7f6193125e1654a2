package websocket

import (
	"context"
	"fmt"
	"iter"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/supervisor"
)

// Message is one whole message read from the connection.
type Message struct {
	Type websocket.MessageType // websocket.MessageText or websocket.MessageBinary
	Data []byte                // at most Options.ReadLimit bytes; the program's to keep
}

// Messages returns the messages of s's connections, in order, as an
// iterator: it waits for the live connection (s.Conn) and reads whole
// messages from it. A failed read (the server closed, the network broke, a
// message over ReadLimit) is reported to s (Invalidate, so that Classify
// sees the close status and the supervisor reconnects at once instead of at
// the next heartbeat) and yielded once as an error, "websocket: read: ..."
// (CloseStatus reads its close code): messages may have been missed. Then
// the next connection's messages follow, after OnConnect has re-sent the
// subscriptions.
//
// The loop ends when s.Conn fails: ctx ended, or the supervisor stopped
// or gave up (s.Err says which, once s.Done is closed); after Failed it
// ends at once, it never spins. A read that fails because ctx ended ends
// the loop without an error. A break leaves the connection alone.
//
// Range over Messages from one goroutine at a time, and keep ranging: the
// reader is what sees the heartbeat's pongs, so a loop body that blocks
// for longer than PingTimeout loses the connection (ErrHeartbeat). Hand
// slow work to another goroutine.
//
// As with coder/websocket, a ctx that ends during a read closes the
// connection at once, without the close handshake: do not use per-message
// timeouts, and to leave politely (1000) end Run's ctx first and this ctx
// after Run returned (Run's close ends the read in progress, which may be
// yielded as one last error before the loop ends).
//
// Messages allocates nothing per message beyond what conn.Read does. A
// program that reads the *websocket.Conn from s.Conn with its own loop
// must do the same as Messages: call s.Invalidate(conn, err) when a read
// fails.
func Messages(ctx context.Context, s *supervisor.Supervisor[*websocket.Conn]) iter.Seq2[Message, error] {
	return func(yield func(Message, error) bool) {
		for {
			conn, err := s.Conn(ctx)
			if err != nil {
				return
			}
			if !readAll(ctx, s, conn, yield) {
				return
			}
		}
	}
}

// readAll yields conn's messages until a read fails, and reports whether
// the loop goes on to the next connection.
func readAll(ctx context.Context, s *supervisor.Supervisor[*websocket.Conn], conn *websocket.Conn, yield func(Message, error) bool) bool {
	for {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			err = safeRead(conn, err) // before Close forgets conn's target
			s.Invalidate(conn, err)
			if ctx.Err() != nil {
				return false // the program ended the loop
			}
			return yield(Message{}, fmt.Errorf("websocket: read: %w", err))
		}
		if !yield(Message{Type: typ, Data: data}, nil) {
			return false
		}
	}
}
