package gorilla

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"time"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/supervisor"
)

// Message is one whole message read from the connection.
type Message struct {
	Type int    // websocket.TextMessage or websocket.BinaryMessage
	Data []byte // at most Options.ReadLimit bytes; the program's to keep
}

// Messages returns the messages of s's connections, in order, as an
// iterator: it waits for the live connection (s.Conn) and reads whole
// messages from it. A failed read (the server closed, the network broke,
// nothing heard within PingInterval + PingTimeout, a message over
// ReadLimit) is reported to s (Invalidate, so that Classify sees the
// close status and the supervisor reconnects at once instead of at the
// next heartbeat) and yielded once as an error, "gorilla: read: ..."
// (CloseStatus reads its close code): messages may have been missed.
// Then the next connection's messages follow, after OnConnect has re-sent
// the subscriptions.
//
// The read deadline is PingInterval + PingTimeout from when the loop
// began reading the connection, and every pong and the first message read
// after each of the heartbeat's pings move it that far again: a peer that goes silent fails
// the read (ErrHeartbeat) even between two heartbeats.
//
// The loop ends when s.Conn fails: ctx ended, or the supervisor stopped
// or gave up (s.Err says which, once s.Done is closed); after Failed it
// ends at once, it never spins. When the supervisor stops, its close ends
// the read in progress and the loop ends without an error. A ctx that
// ends during a read drops the connection at once (gorilla/websocket's
// reads have no ctx, so the adapter closes the socket to end the read) and
// ends the loop without an error: to leave politely (1000), end Run's ctx
// first and this ctx after Run returned. A break leaves the connection
// alone.
//
// gorilla/websocket allows one reader per connection: range over Messages
// from one goroutine at a time. A second loop reading the same connection
// at the same time, or a loop on a WriteOnly supervisor, yields
// ErrReaderBusy once and ends. And keep ranging: the reader is what sees
// the heartbeat's pongs, so a loop body that blocks for longer than
// PingTimeout loses the connection (ErrHeartbeat). Hand slow work to
// another goroutine.
//
// Messages allocates nothing per message beyond what conn.ReadMessage
// does. A program that reads the *websocket.Conn from s.Conn with its own
// loop must do what Messages does: call s.Invalidate(conn, err) when a
// read fails, and keep the pong and close handlers the adapter set (wrap
// them: conn.PongHandler() returns the adapter's).
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
	st := stateOf(conn)
	if st == nil {
		return true // closed a moment ago: the supervisor no longer hands it out
	}
	if !st.readers.CompareAndSwap(0, 1) {
		yield(Message{}, fmt.Errorf("gorilla: read: %w", ErrReaderBusy))
		return false
	}
	defer st.readers.Store(0)
	stop := context.AfterFunc(ctx, func() {
		st.fail(nil)
		_ = conn.Close() // ends the read in progress
	})
	defer stop()
	// The deadline the handshake set may have passed while OnConnect ran
	// and nothing read: it counts from now, as the heartbeat (which began
	// with Connected) does.
	_ = conn.SetReadDeadline(time.Now().Add(st.within))
	for {
		typ, data, err := conn.ReadMessage()
		if err != nil {
			st.endRead()
			if st.leaving.Load() {
				return true // Close said goodbye: no failure; s.Conn says the supervisor stopped
			}
			err = safeWith(st.secrets, st.readFailure(err))
			s.Invalidate(conn, err)
			if ctx.Err() != nil {
				return false // the program ended the loop
			}
			return yield(Message{}, fmt.Errorf("gorilla: read: %w", err))
		}
		if st.ask.Load() { // the heartbeat pinged: tell it the peer is alive
			st.ask.Store(false)
			st.heardFrom(conn, time.Now())
		}
		if !yield(Message{Type: typ, Data: data}, nil) {
			return false
		}
	}
}

// readFailure says why a read of the connection failed: the heartbeat's
// error when the heartbeat found it dead (and Close dropped it), an
// ErrHeartbeat when the read deadline passed, else err.
func (st *connState) readFailure(err error) error {
	if why := st.why.Load(); why != nil {
		return *why
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w: nothing heard from the peer within %v: %w", ErrHeartbeat, st.within, err)
	}
	return err
}
