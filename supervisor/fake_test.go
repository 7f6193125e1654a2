package supervisor_test

import (
	"context"
	"errors"
	"sync"
	"time"
)

// conn is a fake connection. Send on (or close) broken to break it.
type conn struct {
	id     int
	broken chan error
}

// fake is an in-memory Connector and Watcher that records what the
// supervisor does with it. Attempt n (1-based) fails with results[n-1]
// when that is non-nil; attempts past the list succeed.
type fake struct {
	mu      sync.Mutex
	results []error
	latency time.Duration // virtual time each Connect takes
	hang    bool          // Connect blocks until its ctx ends

	starts, ends []time.Time // of every Connect call
	conns        []*conn
	open         int // connections returned and not closed
	maxOpen      int
	closes       map[*conn]int
	onConnect    func() // called inside Connect, for checks
}

func (f *fake) Connect(ctx context.Context) (*conn, error) {
	f.mu.Lock()
	f.starts = append(f.starts, time.Now())
	n := len(f.starts)
	hook := f.onConnect
	f.mu.Unlock()
	if hook != nil {
		hook()
	}
	if f.hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if f.latency > 0 {
		t := time.NewTimer(f.latency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ends = append(f.ends, time.Now())
	if n <= len(f.results) && f.results[n-1] != nil {
		return nil, f.results[n-1]
	}
	c := &conn{id: n, broken: make(chan error, 1)}
	f.conns = append(f.conns, c)
	f.open++
	f.maxOpen = max(f.maxOpen, f.open)
	return c, nil
}

func (f *fake) Close(c *conn) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closes == nil {
		f.closes = map[*conn]int{}
	}
	f.closes[c]++
	if f.closes[c] > 1 {
		return errors.New("closed twice")
	}
	f.open--
	return nil
}

func (f *fake) Watch(ctx context.Context, c *conn) error {
	select {
	case err := <-c.broken:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// closeCount returns how many times c was closed.
func (f *fake) closeCount(c *conn) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closes[c]
}

// openCount returns how many connections are open.
func (f *fake) openCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.open
}

// last returns the newest connection.
func (f *fake) last() *conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.conns) == 0 {
		return nil
	}
	return f.conns[len(f.conns)-1]
}

func (f *fake) snapshot() (starts, ends []time.Time, open, maxOpen int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.starts...), append([]time.Time(nil), f.ends...), f.open, f.maxOpen
}

// noWatch hides fake's Watch: the supervisor then waits for Invalidate.
type noWatch struct{ f *fake }

func (n noWatch) Connect(ctx context.Context) (*conn, error) { return n.f.Connect(ctx) }
func (n noWatch) Close(c *conn) error                        { return n.f.Close(c) }

func errs(n int, err error) []error {
	out := make([]error, n)
	for i := range out {
		out[i] = err
	}
	return out
}
