package chaos

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// The feed protocol, one text message each:
//
//	client: "resume C F"   in OnConnect: this is the client's connection C,
//	                       and F is the next sequence number it wants
//	server: "start C K R"  the first number sent on C is K; R is "replay"
//	                       when K == F (the server resent what C missed),
//	                       "fresh" when it did not replay
//	server: "m C N"        sequence number N, on connection C
//
// Every feedInterval the server sends one new number, after any it replays.
const (
	feedInterval = 40 * time.Millisecond
	feedBurst    = 64 // most numbers replayed per interval
	writeTimeout = 2 * time.Second
)

// feedStream is one subject's sequence, kept by the server across
// connections and restarts. The newest connection owns it: an older one
// still open stops receiving.
type feedStream struct {
	replay bool   // resend from the client's F on a new connection
	skipAt uint64 // -chaos.break=skip-seq: this number is never sent; 0: none

	mu    sync.Mutex
	next  uint64 // the next number to make
	owner uint64 // the connection the feed goes to
}

func newFeedStream(replay bool, skipAt uint64) *feedStream {
	return &feedStream{replay: replay, skipAt: skipAt, next: 1}
}

// takeOver gives the feed to connection conn, which wants from next, and
// returns the first number it will send and whether that is a replay.
func (f *feedStream) takeOver(conn, from uint64) (start uint64, replay bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.owner = conn
	if f.replay && from >= 1 && from <= f.next {
		return from, true
	}
	return f.next, false
}

// take returns the number to send at cursor on conn: an older one again
// (replay), or a new one (made). ok is false once conn lost the feed.
func (f *feedStream) take(conn, cursor uint64) (seq uint64, made, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.owner != conn {
		return 0, false, false
	}
	if cursor < f.next {
		return cursor, false, true
	}
	seq = f.next
	if seq == f.skipAt {
		seq++ // broken on purpose: a number skipped without a reconnect
	}
	f.next = seq + 1
	return seq, true, true
}

// serveFeed runs the protocol on c until the connection ends.
func (s *wsServer) serveFeed(c *websocket.Conn, st *feedStream) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	_, msg, err := c.Read(ctx)
	cancel()
	var conn, from uint64
	if err != nil {
		return
	}
	if _, err := fmt.Sscanf(string(msg), "resume %d %d", &conn, &from); err != nil {
		_ = c.Close(websocket.StatusProtocolError, "want resume")
		return
	}
	read := make(chan struct{}) // closed when the connection ended
	go func() {
		defer close(read)
		for {
			if _, _, err := c.Read(context.Background()); err != nil {
				return // pings are answered while this reads
			}
		}
	}()
	defer func() { _ = c.CloseNow(); <-read }()
	cursor, replay := st.takeOver(conn, from)
	if write(c, fmt.Sprintf("start %d %d %s", conn, cursor, map[bool]string{true: "replay", false: "fresh"}[replay])) != nil {
		return
	}
	tick := time.NewTicker(feedInterval)
	defer tick.Stop()
	for {
		select {
		case <-read:
			return
		case <-tick.C:
		}
		for range feedBurst {
			seq, made, ok := st.take(conn, cursor)
			if !ok {
				<-read // a newer connection has the feed; this one waits for its end
				return
			}
			if write(c, fmt.Sprintf("m %d %d", conn, seq)) != nil {
				return
			}
			cursor = seq + 1
			if made {
				break
			}
		}
	}
}

func write(c *websocket.Conn, msg string) error {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, []byte(msg))
}
