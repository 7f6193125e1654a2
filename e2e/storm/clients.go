package storm

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/supervisor"
)

// fleet is n clients of one kind; connected says how many are connected
// now, generation counts connections made so far.
type fleet interface {
	connected() int
	stop()
}

// supervised is n redial supervisors (the default policy: decorrelated
// jitter, Base 1s, Cap 1 minute), each with a reader that reports the
// loss (a loop over Connections that invalidates the connection whose
// read failed), as a program does.
type supervised struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sups   []*supervisor.Supervisor[net.Conn]
}

// stableAfter is short so that connections a few seconds old count as
// stable, as the hours-old connections of a real fleet do: their loss
// takes the supervisor's first-retry path, rand[0, Base).
const stableAfter = time.Second

func newSupervised(addr string, n int) (*supervised, error) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &supervised{cancel: cancel}
	for range n {
		s, err := tcp.New(addr, tcp.Options{
			Supervisor: supervisor.Settings{StableAfter: stableAfter},
		})
		if err != nil {
			cancel()
			f.wg.Wait()
			return nil, err
		}
		f.sups = append(f.sups, s)
		f.wg.Go(func() { _ = s.Run(ctx) })
		f.wg.Go(func() { read(ctx, s) })
	}
	return f, nil
}

// read reads each connection until it fails, reports the failure, and
// waits for the next one; it ends when ctx ends or the supervisor stops.
func read(ctx context.Context, s *supervisor.Supervisor[net.Conn]) {
	buf := make([]byte, 64)
	for conn := range s.Connections(ctx) {
		var err error
		for err == nil {
			_, err = conn.Read(buf)
		}
		s.Invalidate(conn, err)
	}
}

func (f *supervised) connected() int {
	n := 0
	for _, s := range f.sups {
		if _, err := s.Conn(doneCtx); err == nil {
			n++
		}
	}
	return n
}

func (f *supervised) stop() { f.cancel(); f.wg.Wait() }

// doneCtx makes Conn answer without waiting.
var doneCtx = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// naive is n plain reconnect loops without jitter: dial at once after a
// loss, then wait 1s, 2s, 4s... (capped at 1 minute) between failures.
type naive struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	up     atomic.Int64
}

func newNaive(addr string, n int) *naive {
	ctx, cancel := context.WithCancel(context.Background())
	f := &naive{cancel: cancel}
	for range n {
		f.wg.Go(func() { f.loop(ctx, addr) })
	}
	return f
}

func (f *naive) loop(ctx context.Context, addr string) {
	var d net.Dialer
	for ctx.Err() == nil {
		delay := time.Second
		var conn net.Conn
		for {
			var err error
			if conn, err = d.DialContext(ctx, "tcp", addr); err == nil {
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			delay = min(2*delay, time.Minute)
		}
		f.up.Add(1)
		stop := context.AfterFunc(ctx, func() { conn.Close() })
		_, _ = io.Copy(io.Discard, conn)
		stop()
		conn.Close()
		f.up.Add(-1)
	}
}

func (f *naive) connected() int { return int(f.up.Load()) }
func (f *naive) stop()          { f.cancel(); f.wg.Wait() }
