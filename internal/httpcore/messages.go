package httpcore

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"

	"github.com/redial-go/redial/supervisor"
)

// Reader is how a WebSocket adapter reads one message of a connection.
type Reader[C comparable, M any] struct {
	Begin func(conn C, st *State) // before a loop's first read of conn; nil for none
	Read  func(ctx context.Context, conn C, st *State) (M, error)
	Drop  func(conn C) // closes conn at once, ending a read under way
	// DropsOnCtx says that Read drops conn itself when its ctx ends
	// (coder/websocket's does): the loop then adds no watch of ctx, which
	// is 150 B per connection.
	DropsOnCtx bool
}

// Messages returns the messages of s's connections, in order: it waits
// for the live connection (s.Conn) and reads it. A failed read is made
// safe, reported to s (Invalidate, so that Classify sees why and the
// supervisor reconnects at once) and yielded once as an error, "<pkg>:
// read: ..."; then the next connection's messages follow. A read that
// fails because the supervisor's Close said goodbye is no failure, and one
// that fails because ctx ended ends the loop: neither is yielded; but a
// goodbye of a replacement (Replace, MaxConnectionAge) is followed by one
// error wrapping supervisor.ErrSwitched before the new connection's
// messages. The loop ends when s.Conn fails (ctx ended, the supervisor
// stopped, drains or gave up).
//
// One reader at a time: a loop that finds the connection read by another
// (a second loop, the WriteOnly reader) yields ErrReaderBusy once and
// ends. A ctx that ends during a read drops the connection.
func (r Reader[C, M]) Messages(ctx context.Context, s *supervisor.Supervisor[C]) iter.Seq2[M, error] {
	return func(yield func(M, error) bool) {
		var zero M
		var switched error // the goodbye came from a replacement when a connection follows
		for {
			conn, err := s.Conn(ctx)
			if err != nil {
				return
			}
			if switched != nil && !yield(zero, switched) {
				return
			}
			var more bool
			if more, switched = r.readAll(ctx, s, conn, yield); !more {
				return
			}
		}
	}
}

// readAll yields conn's messages until a read fails, and reports whether
// the loop goes on to the next connection, and, when Close said goodbye,
// what to yield should one follow (a replacement: ErrSwitched).
func (r Reader[C, M]) readAll(ctx context.Context, s *supervisor.Supervisor[C], conn C, yield func(M, error) bool) (bool, error) {
	var zero M
	st := StateOf(conn) // kept: after Close, what the loop yields is masked all the same
	if st == nil {
		return true, nil // closed a moment ago: the supervisor no longer hands it out
	}
	if !st.readers.CompareAndSwap(0, 1) {
		yield(zero, fmt.Errorf("%s: read: %w", st.Pkg, ErrReaderBusy))
		return false, nil
	}
	defer st.readers.Store(0)
	if !r.DropsOnCtx {
		stop := context.AfterFunc(ctx, func() {
			st.Fail(nil)
			r.Drop(conn)
		})
		defer stop()
	}
	if r.Begin != nil {
		r.Begin(conn, st)
	}
	for n := 0; ; n++ {
		m, err := r.Read(ctx, conn, st)
		if err != nil {
			st.endRead()
			if st.polite.Load() { // Close said goodbye: s.Conn says whether the supervisor stopped
				return true, fmt.Errorf("%s: %w", st.Pkg, supervisor.ErrSwitched)
			}
			err = st.readError(err, n)
			if ctx.Err() != nil {
				st.Fail(nil) // dropped: no goodbye
				s.Invalidate(conn, err)
				return false, nil // the program ended the loop
			}
			s.Invalidate(conn, err)
			return yield(zero, fmt.Errorf("%s: read: %w", st.Pkg, err)), nil
		}
		if !yield(m, nil) {
			return false, nil
		}
	}
}

// readError is a failed read's error, made safe; n messages came before.
func (st *State) readError(err error, n int) error {
	err = st.failure(err)
	if st.TooBig != nil && errors.Is(err, st.TooBig) {
		return st.OverLimit(err, strconv.Itoa(n))
	}
	st.OtherBreak()
	return st.Safe(err)
}
