package otel_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// link is an in-memory connector whose attempts fail while down is set; a
// connection breaks when its channel is closed.
type link struct {
	down atomic.Bool
	mu   sync.Mutex
	last chan struct{}
}

func (l *link) Connect(ctx context.Context) (chan struct{}, error) {
	if l.down.Load() {
		return nil, errors.New("connection refused")
	}
	c := make(chan struct{})
	l.mu.Lock()
	l.last = c
	l.mu.Unlock()
	return c, nil
}

func (l *link) breakLast() {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.last)
}

func (l *link) Close(chan struct{}) error { return nil }

func (l *link) Watch(ctx context.Context, c chan struct{}) error {
	select {
	case <-c:
		return errors.New("reset by peer")
	case <-ctx.Done():
		return nil
	}
}
