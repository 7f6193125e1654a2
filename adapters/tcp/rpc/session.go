package rpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp/internal/dial"
)

// session is one connection: its rpc2 client, the goroutines working on it
// (the read loop and one per request being written), and the calls
// abandoned on it. Every goroutine it starts has ended when close returns.
type session struct {
	client *rpc2.Client
	codec  *codec
	closed chan struct{} // closed when close begins

	mu        sync.Mutex
	closing   bool
	wg        sync.WaitGroup
	abandoned []chan *rpc2.Call // calls whose ctx ended before their reply
}

func newSession(conn net.Conn) *session {
	c := &codec{Codec: rpc2.NewGobCodec(dial.DropOnClose(conn))}
	return &session{client: rpc2.NewClientWithCodec(c), codec: c, closed: make(chan struct{})}
}

// handle registers the handlers; checkHandler has vetted them, and a panic
// rpc2 still raises becomes an error.
func (s *session) handle(handlers map[string]any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("register handler: %v", r)
		}
	}()
	for name, h := range handlers {
		s.client.Handle(name, h)
	}
	return nil
}

// start runs the client's read loop.
func (s *session) start() {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.client.Run()
	}()
}

// add counts a goroutine about to start, which calls s.wg.Done when it
// ends, unless the session is closing.
func (s *session) add() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.wg.Add(1)
	return true
}

// dones recycles the channels of calls that got their reply: rpc2 sends
// on a call's channel once, and an abandoned call's is never put back.
var dones = sync.Pool{New: func() any { return make(chan *rpc2.Call, 1) }}

// call makes one call bounded by ctx. rpc2 writes a request on the
// caller's goroutine and that write can block on a stalled peer, so it is
// made on a goroutine of the session, which ends when the write does (at
// the latest when close closes the socket). sent reports whether the
// request may have reached the socket.
func (s *session) call(ctx context.Context, method string, args, reply any) (sent bool, err error) {
	if !s.add() {
		return false, rpc2.ErrShutdown
	}
	out := &outgoing{args: args}
	done := dones.Get().(chan *rpc2.Call) // buffered: rpc2 never blocks on it
	go func() {
		defer s.wg.Done()
		s.client.Go(method, out, reply, done)
	}()
	select {
	case c := <-done:
		dones.Put(done)
		return out.sent.Load(), c.Error
	case <-ctx.Done():
		s.abandon(done)
		return out.sent.Load(), context.Cause(ctx)
	}
}

// abandon records a call that will get no reader, forgetting those that
// got their reply since. A call stops waiting when its reply arrives or
// when the connection closes (rpc2 then fails every pending call).
func (s *session) abandon(done chan *rpc2.Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	waiting := s.abandoned[:0]
	for _, d := range s.abandoned {
		if len(d) == 0 {
			waiting = append(waiting, d)
		}
	}
	clear(s.abandoned[len(waiting):])
	s.abandoned = append(waiting, done)
}

// pending returns how many abandoned calls still wait for a reply.
func (s *session) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, d := range s.abandoned {
		if len(d) == 0 {
			n++
		}
	}
	return n
}

// lost returns why the read loop ended; call it after DisconnectNotify.
func (s *session) lost() error {
	if err := s.codec.readErr.Load(); err != nil {
		return fmt.Errorf("rpc2 connection closed: %w", *err)
	}
	return errors.New("rpc2 connection closed")
}

// ended reports whether the read loop has ended or is ending: it failed a
// read, and fails every pending call before DisconnectNotify fires.
func (s *session) ended() bool {
	select {
	case <-s.client.DisconnectNotify():
		return true
	default:
		return s.codec.readErr.Load() != nil
	}
}

// close closes the connection and waits for every goroutine of the
// session: the read loop fails every pending call and returns, blocked
// writes fail.
func (s *session) close() {
	s.mu.Lock()
	first := !s.closing
	s.closing = true
	s.mu.Unlock()
	if first {
		close(s.closed)
	}
	_ = s.client.Close() // ErrShutdown when the read loop ended (and closed the socket) first
	s.wg.Wait()
}
