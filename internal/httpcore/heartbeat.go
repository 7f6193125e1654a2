package httpcore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/redial-go/redial/supervisor"
)

// Pinger is a Library whose connections a heartbeat watches (WebSocket):
// Ping sends one ping on conn and waits for its pong until ctx ends.
type Pinger[C comparable] interface {
	Ping(ctx context.Context, conn C, st *State) error
}

// heartbeat is a WebSocket connection's Watch: every PingInterval a ping,
// waiting PingTimeout for its pong. A missing pong (ErrHeartbeat), a ping
// that finds the connection closed and the end of the WriteOnly reader
// (with its reason: a close frame's status reaches Classify) invalidate
// the connection with that reason; Watch returns when its ctx ends. After
// Invalidate, Close drops the connection (it is known to be broken); after
// a stop it says goodbye.
//
// Each ping runs on a timer's goroutine, which ends with it: between pings
// no goroutine waits for the heartbeat, and the supervisor's only waits
// for ctx (heartbeat_internal_test.go). heartbeat returns after the ping
// under way, cancelled, returned.
//
// A pong is only seen by a goroutine reading the connection: the program's
// or, with WriteOnly, the adapter's. If nothing reads, every ping fails and
// the connection is replaced, with an ErrHeartbeat that says so.
func (c *connector[C]) heartbeat(ctx context.Context, conn C, st *State) error {
	b := &beat[C]{c: c, conn: conn, st: st}
	b.mu.Lock()
	b.t = time.AfterFunc(st.PingInterval, b.tick)
	b.mu.Unlock()
	if st.watch(b) {
		b.readerEnded()
	}
	<-ctx.Done()
	b.stop()
	if _, ok := errors.AsType[*supervisor.InvalidatedError](context.Cause(ctx)); ok {
		st.Fail(nil) // the program or the heartbeat saw the connection fail; any other cause is a stop: goodbye
	}
	return ctx.Err()
}

// beat is one connection's heartbeat between its pings: a timer, and the
// cancel of the ping under way.
type beat[C comparable] struct {
	c    *connector[C]
	conn C
	st   *State

	mu     sync.Mutex
	t      *time.Timer
	over   bool               // heartbeat is returning: no more pings
	cancel context.CancelFunc // the ping under way's; nil between pings
	pinged sync.WaitGroup     // the ping under way
}

// tick makes one ping, on the timer's goroutine, and arms the next one or
// invalidates the connection.
func (b *beat[C]) tick() {
	b.mu.Lock()
	if b.over {
		b.mu.Unlock()
		return
	}
	pctx, cancel := context.WithTimeout(context.Background(), b.st.PingTimeout)
	b.cancel = cancel
	b.pinged.Add(1)
	b.mu.Unlock()
	defer b.pinged.Done()
	err := b.c.lib.(Pinger[C]).Ping(pctx, b.conn, b.st)
	cancel()
	if err != nil {
		err = b.st.pingError(err)
	}
	b.mu.Lock()
	over := b.over
	b.cancel = nil
	if !over && err == nil {
		b.t.Reset(b.st.PingInterval)
	}
	b.mu.Unlock()
	if over || err == nil || b.st.readerGone() { // the WriteOnly reader has the better reason (a close status)
		return
	}
	b.st.Fail(err)
	b.c.sup.Invalidate(b.conn, err)
}

// readerEnded invalidates the connection with the WriteOnly reader's
// reason.
func (b *beat[C]) readerEnded() {
	b.mu.Lock()
	over := b.over
	b.mu.Unlock()
	if !over {
		b.st.Fail(nil)
		b.c.sup.Invalidate(b.conn, b.st.readErr)
	}
}

// stop ends the heartbeat: no new ping, the one under way cancelled and
// waited for.
func (b *beat[C]) stop() {
	b.mu.Lock()
	b.over = true
	b.t.Stop()
	if b.cancel != nil {
		b.cancel()
	}
	b.mu.Unlock()
	b.pinged.Wait()
}

// pingError says why a ping failed.
func (st *State) pingError(err error) error {
	closing := false
	if st.Codes != nil {
		_, _, closing = st.Codes.Of(err)
	}
	switch {
	case closing:
		return fmt.Errorf("heartbeat: the server closed the connection: %w", err)
	case errors.Is(err, net.ErrClosed):
		return fmt.Errorf("heartbeat: connection closed: %w", err)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: no pong within %v (the peer is silent, or nothing reads the connection)", ErrHeartbeat, st.PingTimeout)
	}
	return fmt.Errorf("%w: %w", ErrHeartbeat, err)
}
