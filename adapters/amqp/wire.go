package amqp

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync"
)

// wire is the TCP connection under an AMQP connection. It remembers the
// first read error, which is how the heartbeat's failure is told from a
// reset: amqp091 gives up on a silent broker with a read deadline, and
// reports every read error the same way.
type wire struct {
	net.Conn
	mu      sync.Mutex
	readErr error
}

// errAttemptOver is the read error of a wire that the attempt's end
// closed.
var errAttemptOver = errors.New("the attempt ended")

func (w *wire) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	if err != nil {
		w.record(err)
	}
	return n, err
}

// closeOK is connection.close-ok as amqp091 writes it: its answer to the
// broker's connection.close, the last frame it sends.
var closeOK = []byte{1, 0, 0, 0, 0, 0, 4, 0, 10, 0, 51, 0xce}

// Write reports a close-ok that the broker's reset met first as sent:
// amqp091 would report the failed write (501) in place of the broker's
// reason (320 for a shutdown), whichever of the two came first.
func (w *wire) Write(p []byte) (int, error) {
	n, err := w.Conn.Write(p)
	if err != nil && bytes.HasSuffix(p, closeOK) {
		return len(p), nil
	}
	return n, err
}

func (w *wire) record(err error) {
	w.mu.Lock()
	if w.readErr == nil {
		w.readErr = err
	}
	w.mu.Unlock()
}

// err returns the first read error, nil when none.
func (w *wire) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.readErr
}

// silent reports whether reading stopped at a read deadline: after the
// handshake only the heartbeat sets one.
func (w *wire) silent() bool {
	var ne net.Error
	return errors.As(w.err(), &ne) && ne.Timeout()
}

// abort closes the wire when the attempt ends before it is over: the
// handshake or Topology, blocked in a read, returns.
func (w *wire) abort() {
	w.record(errAttemptOver)
	_ = w.Conn.Close()
}

// dialer returns amqp091's Config.Dial for one attempt: a dial bounded by
// ctx, the wire it made in *w, closed when ctx ends until *stop is called
// (the handshake and Topology end with the attempt), and ctx's deadline
// on the handshake (amqp091 clears it once the connection is open).
func dialer(ctx context.Context, w **wire, stop *func() bool) func(network, addr string) (net.Conn, error) {
	return func(network, addr string) (net.Conn, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if dl, ok := ctx.Deadline(); ok {
			_ = nc.SetDeadline(dl)
		}
		*w = &wire{Conn: nc}
		*stop = context.AfterFunc(ctx, (*w).abort)
		return *w, nil
	}
}
