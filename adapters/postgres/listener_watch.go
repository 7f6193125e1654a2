package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/redial-go/redial/supervisor"
)

// listenConnector is the Listener's Connector and Watcher: the supervisor
// runs Watch on its own goroutine, which waits for the notifications.
type listenConnector struct {
	*connector
	l *Listener
}

func (c *listenConnector) Connect(ctx context.Context) (*listenerConn, error) {
	return listening(c.connect(ctx, -1))
}

func (c *listenConnector) Close(lc *listenerConn) error { return c.connector.Close(lc.conn) }

func (c *listenConnector) Watch(ctx context.Context, lc *listenerConn) error {
	return c.l.watch(ctx, lc.conn)
}

func (c *listenConnector) ConnectTo(ctx context.Context, i int) (*listenerConn, error) {
	return listening(c.connect(ctx, c.t.at(i)))
}

func listening(conn *pgx.Conn, err error) (*listenerConn, error) {
	if err != nil {
		return nil, err
	}
	return &listenerConn{conn}, nil
}

// onConnect LISTENs on every channel, in one round trip, before the state
// is Connected, and serves the Listen calls made until now.
func (l *Listener) onConnect(ctx context.Context, lc *listenerConn) error {
	l.mu.Lock()
	channels := slices.Clone(l.channels)
	reqs := l.pending
	l.pending = nil
	l.mu.Unlock()
	if err := listen(ctx, lc.conn, channels); err != nil {
		l.requeue(reqs)
		return err
	}
	l.pinged = time.Now()
	serve(reqs)
	return nil
}

// watch delivers notifications until conn breaks (it returns why) or ctx
// ends, the ErrMissed error owed after a reconnect first. A Listen call
// interrupts the wait; its LISTEN runs here, between two waits.
func (l *Listener) watch(ctx context.Context, conn *pgx.Conn) (err error) {
	defer func() {
		if !l.owed { // the first loss since the program last heard of one
			l.owed, l.lost = true, l.t.scrub(err)
		}
	}()
	for {
		if l.owed {
			if ok, err := l.send(ctx, conn, item{err: l.missed()}); !ok {
				return err // still owed: delivered after the next connect
			}
			l.owed, l.lost = false, nil
		}
		if err := l.servePending(ctx, conn); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, l.pingInterval)
		if !l.arm(cancel) {
			cancel() // a Listen came in meanwhile
			continue
		}
		n, err := conn.WaitForNotification(wctx)
		l.arm(nil)
		cancel()
		if n != nil {
			if ok, err := l.send(ctx, conn, item{n: Notification{Channel: n.Channel, Payload: n.Payload, PID: n.PID}}); !ok {
				return err
			}
			// A fenced primary still delivers NOTIFY: its role is asked
			// every PingInterval however busy the channels are.
			if l.t.role != roleAny && time.Since(l.pinged) >= l.pingInterval {
				if err := l.ping(ctx, conn); err != nil {
					return err
				}
			}
		}
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil
		case wctx.Err() != nil && !conn.IsClosed():
			// Interrupted by Listen, or silent for PingInterval: a read
			// deadline to pgconn, not a broken connection.
			if errors.Is(wctx.Err(), context.DeadlineExceeded) {
				if err := l.ping(ctx, conn); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("wait for notification: %w", err)
		}
	}
}

// missed returns the error owed after a reconnect.
func (l *Listener) missed() error {
	if l.lost == nil {
		return fmt.Errorf("postgres: %w", ErrMissed)
	}
	return fmt.Errorf("postgres: %w: connection lost: %w", ErrMissed, l.lost)
}

// ping checks a connection that stayed silent for PingInterval, and that
// its server still answers target_session_attrs (ErrWrongRole).
func (l *Listener) ping(ctx context.Context, conn *pgx.Conn) error {
	pctx, cancel := context.WithTimeout(ctx, l.pingTimeout)
	defer cancel()
	err := conn.Ping(pctx)
	l.pinged = time.Now()
	switch {
	case err == nil:
		return l.t.role.misplaced(conn.PgConn())
	case ctx.Err() != nil:
		return nil
	case pctx.Err() != nil:
		return fmt.Errorf("ping: no answer within %v: %w: %w", l.pingTimeout, supervisor.ErrSilent, err)
	}
	return fmt.Errorf("ping: %w", err)
}

// arm sets the function that interrupts the current wait; it refuses
// (false) when Listen calls are already pending. arm(nil) disarms.
func (l *Listener) arm(cancel context.CancelFunc) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cancel != nil && len(l.pending) > 0 {
		return false
	}
	l.interrupt = cancel
	return true
}

// servePending LISTENs on the channels of pending Listen calls.
func (l *Listener) servePending(ctx context.Context, conn *pgx.Conn) error {
	l.mu.Lock()
	reqs := l.pending
	l.pending = nil
	l.mu.Unlock()
	if len(reqs) == 0 {
		return nil
	}
	var channels []string
	for _, r := range reqs {
		if !slices.Contains(channels, r.channel) {
			channels = append(channels, r.channel)
		}
	}
	if err := listen(ctx, conn, channels); err != nil {
		l.requeue(reqs) // the next connect LISTENs them all
		return err
	}
	serve(reqs)
	return nil
}

func (l *Listener) requeue(reqs []*listenRequest) {
	l.mu.Lock()
	l.pending = append(reqs, l.pending...)
	l.mu.Unlock()
}

func serve(reqs []*listenRequest) {
	for _, r := range reqs {
		close(r.done)
	}
}

// send puts it in the buffer unless ctx ends first (false, nil): the
// program's pace sets the Listener's. While it waits it serves Listen
// calls, which may come from the loop over Notifications itself; a failed
// LISTEN is returned (false, err).
func (l *Listener) send(ctx context.Context, conn *pgx.Conn, it item) (bool, error) {
	for {
		select {
		case l.items <- it:
			return true, nil
		case <-ctx.Done():
			return false, nil
		case <-l.wake:
			if err := l.servePending(ctx, conn); err != nil {
				return false, err
			}
		}
	}
}

// listen runs LISTEN for every channel in one simple-protocol round trip;
// notifications that arrive meanwhile wait in pgx for the next
// WaitForNotification.
func listen(ctx context.Context, conn *pgx.Conn, channels []string) error {
	if len(channels) == 0 {
		return nil
	}
	var b strings.Builder
	for _, ch := range channels {
		b.WriteString("LISTEN " + pgx.Identifier{ch}.Sanitize() + ";")
	}
	if _, err := conn.PgConn().Exec(ctx, b.String()).ReadAll(); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return nil
}
