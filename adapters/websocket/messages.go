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

// Messages returns the messages of s's connections, in order. A failed
// read invalidates the connection, so the supervisor reconnects at once,
// and is yielded once as an error (a replacement: supervisor.ErrSwitched,
// once); the loop ends when s.Conn fails. Range
// from one goroutine at a time (another gets ErrReaderBusy) and keep
// ranging: the reader sees the pongs, so a body blocked past PingTimeout
// loses the connection. A ctx that ends mid-read drops the connection: to
// close with 1000, end Run's ctx first. A program reading s.Conn itself
// calls s.Invalidate(conn, err) when a read fails.
func Messages(ctx context.Context, s *supervisor.Supervisor[*websocket.Conn]) iter.Seq2[Message, error] {
	return reader.Messages(ctx, s)
}
