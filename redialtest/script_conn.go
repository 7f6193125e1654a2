package redialtest

import (
	"context"
	"fmt"
	"time"
)

// Conn is a connection a Script made. Break ends it, as a server that
// goes away would.
type Conn struct {
	// N is the number of the attempt that made it, from 1.
	N      int
	broken chan error
	s      *Script
	closes int // guarded by s.mu
}

// Break makes the Script's Watch of c return err: the connection broke.
// Breaking it again, or after it was closed, does nothing.
func (c *Conn) Break(err error) {
	select {
	case c.broken <- err:
	default:
	}
}

// Closes returns how many times c was closed (the supervisor closes each
// Conn exactly once).
func (c *Conn) Closes() int {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	return c.closes
}

// Connect plays the next step and records the attempt.
func (s *Script) Connect(ctx context.Context) (*Conn, error) {
	s.mu.Lock()
	s.attempts = append(s.attempts, Attempt{Start: time.Now()})
	n := len(s.attempts)
	st, d := s.after, s.latency
	if len(s.steps) > 0 {
		st, s.steps = s.steps[0], s.steps[1:]
	}
	s.mu.Unlock()
	c, err := s.play(ctx, n, st, d)
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &s.attempts[n-1]
	a.End, a.Err, a.Conn = time.Now(), err, c
	if c != nil {
		s.open++
		s.maxOpen = max(s.maxOpen, s.open)
	}
	return c, err
}

func (s *Script) play(ctx context.Context, n int, st step, d time.Duration) (*Conn, error) {
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	switch {
	case st.hang:
		<-ctx.Done()
		return nil, ctx.Err()
	case st.err != nil:
		return nil, st.err
	}
	return &Conn{N: n, broken: make(chan error, 1), s: s}, nil
}

// Close closes c; ErrClosedTwice if it was closed already.
func (s *Script) Close(c *Conn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.closes++
	if c.closes > 1 {
		return ErrClosedTwice
	}
	s.open--
	return nil
}

// Watch returns the error given to c.Break, or ctx's error when it ends.
func (s *Script) Watch(ctx context.Context, c *Conn) error {
	select {
	case err := <-c.broken:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// String names c by its attempt: "conn 3".
func (c *Conn) String() string { return fmt.Sprintf("conn %d", c.N) }
