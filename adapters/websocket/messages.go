package websocket

import (
	"context"
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
// subscriptions. A message over ReadLimit that breaks three connections in
// a row at the same place (a server that resends it on every connect)
// makes the supervisor give up, with an error that names ReadLimit.
//
// The loop ends when s.Conn fails: ctx ended, or the supervisor stopped
// or gave up (s.Err says which, once s.Done is closed); after Failed it
// ends at once, it never spins. When the supervisor stops, its close ends
// the read in progress and the loop ends without an error; so does a
// read that fails because ctx ended. A break leaves the connection alone.
//
// Range over Messages from one goroutine at a time: a second loop reading
// the same connection at the same time, or a loop on a WriteOnly
// supervisor, yields ErrReaderBusy once and ends. And keep ranging: the
// reader is what sees the heartbeat's pongs, so a loop body that blocks
// for longer than PingTimeout loses the connection (ErrHeartbeat). Hand
// slow work to another goroutine.
//
// A ctx that ends during a read closes the connection at once, without
// the close handshake: do not use per-message timeouts, and to leave
// politely (1000) end Run's ctx first and this ctx after Run returned.
//
// Messages allocates nothing per message beyond what conn.Read does. A
// program that reads the *websocket.Conn from s.Conn with its own loop
// must do the same as Messages: call s.Invalidate(conn, err) when a read
// fails.
func Messages(ctx context.Context, s *supervisor.Supervisor[*websocket.Conn]) iter.Seq2[Message, error] {
	return reader.Messages(ctx, s)
}
