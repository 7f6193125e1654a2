package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// Run connects, LISTENs and receives notifications until ctx ends (it
// returns nil) or the Listener gives up (it returns the error, wrapping
// supervisor.ErrFailed). Notifications received before it returned can
// still be read; then Notifications ends. Run may be called once.
func (l *Listener) Run(ctx context.Context) error { return l.sup.Run(ctx) }

// Listen adds channel to the set LISTENed on every connect and returns
// once the live connection LISTENs on it, so that a notification sent
// after Listen returned nil is delivered (or, if the connection breaks
// first, covered by the ErrMissed error that follows the reconnect).
// While the Listener is not connected it waits for the next connect (which
// LISTENs every channel) or for ctx to end; the channel stays in the set
// either way. It may be called from the loop over Notifications, even
// while the buffer is full.
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
	case <-l.sup.Done():
		if err := l.sup.Err(); err != nil {
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

// Status returns a snapshot of the connection's health; a Listener is a
// health.Source.
func (l *Listener) Status() health.Status { return l.sup.Status() }

// Subscribe returns the conflating health channel; see
// supervisor.Supervisor.Subscribe.
func (l *Listener) Subscribe() (<-chan health.Status, func()) { return l.sup.Subscribe() }

// History returns the Listener's last transitions, oldest first (see
// supervisor.Supervisor.History): a Listener is a health.HistorySource,
// for the status page.
func (l *Listener) History() []health.Transition { return l.sup.History() }

// Done returns a channel that is closed once Run has returned.
func (l *Listener) Done() <-chan struct{} { return l.sup.Done() }

// Err returns what Run returned once Done is closed: nil when it stopped
// because its ctx ended, the error (wrapping supervisor.ErrFailed) when it
// gave up. Before that it returns nil.
func (l *Listener) Err() error { return l.sup.Err() }

// Name returns the Listener's name: Supervisor.Name, or "postgres
// listener " and the redacted target.
func (l *Listener) Name() string { return l.sup.Name() }
