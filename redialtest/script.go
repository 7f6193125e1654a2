package redialtest

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redial-go/redial/supervisor"
)

// Script is an in-memory supervisor.Connector and Watcher of *Conn for
// unit tests, made for testing/synctest bubbles: each attempt plays the
// next queued step (Succeed, Fail, Hang); past the queue, attempts
// succeed (or hang: HangAll). The zero value is ready; it is safe for concurrent use.
type Script struct {
	mu       sync.Mutex
	steps    []step
	after    step // past the queue
	latency  time.Duration
	attempts []Attempt
	open     int
	maxOpen  int
}

// Attempt records one Connect: when it began and ended (End is zero while
// it runs), its error, and its Conn when it succeeded.
type Attempt struct {
	Start, End time.Time
	Err        error
	Conn       *Conn
}

type step struct {
	err  error
	hang bool
}

// ErrClosedTwice is what Close returns for a Conn closed already.
var ErrClosedTwice = errors.New("redialtest: connection closed twice")

var _ supervisor.Watcher[*Conn] = (*Script)(nil)

// Succeed queues an attempt that connects.
func (s *Script) Succeed() *Script { return s.queue(1, step{}) }

// Fail queues one failed attempt per error, in order. A plain error is
// retryable; wrap it with backoff.Permanent to end the supervisor, or with
// backoff.RetryAfter to give a server's hint.
func (s *Script) Fail(errs ...error) *Script {
	for _, err := range errs {
		s.queue(1, step{err: err})
	}
	return s
}

// Hang queues an attempt that blocks until its ctx ends (ConnectTimeout,
// or the supervisor stopping), then fails with the ctx's error.
func (s *Script) Hang() *Script { return s.queue(1, step{hang: true}) }

// HangAll makes every attempt past the queue hang, as Hang does, instead
// of connecting: a server that stopped answering for good.
func (s *Script) HangAll() *Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.after = step{hang: true}
	return s
}

// Latency makes every attempt take d (of fake time, in a bubble) before
// its step plays; an attempt whose ctx ends first fails with its error.
func (s *Script) Latency(d time.Duration) *Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
	return s
}

func (s *Script) queue(n int, st step) *Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.steps = append(s.steps, st)
	}
	return s
}

// Attempts returns a copy of every attempt so far, the oldest first.
func (s *Script) Attempts() []Attempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Attempt(nil), s.attempts...)
}

// Last returns the newest Conn made, nil if none.
func (s *Script) Last() *Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.attempts) - 1; i >= 0; i-- {
		if c := s.attempts[i].Conn; c != nil {
			return c
		}
	}
	return nil
}

// Open returns how many Conns are made and not closed (a supervisor keeps
// at most one).
func (s *Script) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

// MaxOpen returns the most Conns open at once so far.
func (s *Script) MaxOpen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxOpen
}

// Unwatched returns s without its Watch method: the supervisor then learns
// of a break only from Invalidate (or Do's error).
func (s *Script) Unwatched() supervisor.Connector[*Conn] { return unwatched{s} }

type unwatched struct{ s *Script }

func (u unwatched) Connect(ctx context.Context) (*Conn, error) { return u.s.Connect(ctx) }
func (u unwatched) Close(c *Conn) error                        { return u.s.Close(c) }
