package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// Run connects, LISTENs and delivers notifications until ctx ends (it
// returns nil) or the Listener gives up (it returns the error). Events is
// closed when Run returns. Run may be called once.
func (l *Listener) Run(ctx context.Context) error {
	if !l.started.CompareAndSwap(false, true) {
		return l.sup.Run(ctx) // supervisor.ErrAlreadyStarted, and nothing else
	}
	defer close(l.events)
	defer close(l.done)
	return l.sup.Run(ctx)
}

// Events returns the channel of notifications and Missed events, in the
// order the server sent them. It is closed when Run returns. Read it
// promptly: while it is full, nothing more is read from the server.
func (l *Listener) Events() <-chan Event { return l.events }

// Listen adds channel to the set LISTENed on every connect and returns
// once the live connection LISTENs on it, so that a notification sent
// after Listen returned nil is delivered (or, if the connection breaks
// first, covered by the Missed event that follows the reconnect). While the Listener is not
// connected it waits for the next connect (which LISTENs every channel)
// or for ctx to end; the channel stays in the set either way. It may be
// called from the goroutine that reads Events, even while Events is full.
func (l *Listener) Listen(ctx context.Context, channel string) error {
	if err := checkChannel(channel); err != nil {
		return fmt.Errorf("postgres: listen: channel %w", err)
	}
	req := &listenRequest{channel: channel, done: make(chan struct{})}
	l.mu.Lock()
	if !slices.Contains(l.channels, channel) {
		l.channels = append(l.channels, channel)
	}
	l.pending = append(l.pending, req)
	interrupt := l.interrupt
	l.mu.Unlock()
	if interrupt != nil {
		interrupt()
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
	select {
	case <-req.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("postgres: listen %q: %w", channel, ctx.Err())
	case <-l.done:
		return fmt.Errorf("postgres: listen %q: %w", channel, supervisor.ErrStopped)
	}
}

// Channels returns the channels LISTENed on every connect.
func (l *Listener) Channels() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.channels)
}

// Status returns a snapshot of the connection's health; a Listener is a
// health.Source.
func (l *Listener) Status() health.Status { return l.sup.Status() }

// Subscribe returns the conflating health channel; see
// supervisor.Supervisor.Subscribe.
func (l *Listener) Subscribe() (<-chan health.Status, func()) { return l.sup.Subscribe() }

// Name returns the Listener's name.
func (l *Listener) Name() string { return l.sup.Name() }
