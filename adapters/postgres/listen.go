package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/redial-go/redial/supervisor"
)

// Listen adds channel to the set LISTENed on every connect and returns
// once the live connection LISTENs on it: a notification sent after Listen
// returned nil is delivered, or covered by the ErrMissed error of a
// reconnect. While not connected it waits for the next connect or for ctx
// to end; the channel stays in the set either way. It may be called from
// the loop over Notifications, even while the buffer is full.
func (l *Listener) Listen(ctx context.Context, channel string) error {
	if problem := checkChannel(channel); problem != "" {
		return fmt.Errorf("postgres: listen: channel %q: %s", channel, problem)
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
	case <-l.Done():
		if err := l.Err(); err != nil {
			return fmt.Errorf("postgres: listen %q: %w", channel, err)
		}
		return fmt.Errorf("postgres: listen %q: %w", channel, supervisor.ErrStopped)
	}
}

// Channels returns the channels LISTENed on every connect.
func (l *Listener) Channels() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.channels)
}
