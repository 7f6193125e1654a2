package gorilla

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/httpcore"
)

// library writes only with WriteControl: the writer is the program's.
type library struct {
	*httpcore.Core
	subprotocols []string
	compression  bool
}

// liveness is what one connection's heartbeat and reader share (State.Lib).
type liveness struct {
	within time.Duration // PingInterval + PingTimeout: the read deadline after a pong or message (see heardFrom)
	origin time.Time     // the handshake: heard counts from it on the monotonic clock, which a wall-clock step does not move
	heard  atomic.Int64  // the last pong or message read, as time since origin
	ask    atomic.Bool   // a ping was written: the next message read is to be recorded (see heardFrom)
	pong   chan struct{} // a pong came (buffered, one): wakes the heartbeat
	closed atomic.Pointer[websocket.CloseError]
	tooBig atomic.Bool // a read failed with ErrReadLimit: gorilla wrote close 1009 (see Close)
}

func livenessOf(st *httpcore.State) *liveness { return st.Lib.(*liveness) }

// Dial sends the url's userinfo as Basic authorization unless the header
// has one: gorilla's Dialer refuses it in the url.
func (l *library) Dial(ctx context.Context, a *httpcore.Attempt, st *httpcore.State) (*websocket.Conn, *http.Response, error) {
	u := *a.URL
	if u.User != nil {
		if a.Header.Get("Authorization") == "" {
			p, _ := u.User.Password()
			a.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+p)))
		}
		u.User = nil
	}
	conn, resp, err := l.handshake(ctx, u.String(), a.Header)
	if err != nil {
		if resp == nil || !errors.Is(err, websocket.ErrBadHandshake) {
			return nil, nil, err
		}
		if resp.StatusCode == http.StatusSwitchingProtocols {
			return nil, nil, fmt.Errorf("server answered 101 without a valid WebSocket upgrade: %w", websocket.ErrBadHandshake)
		}
		return nil, resp, err
	}
	lv := &liveness{within: l.PingInterval + l.PingTimeout, origin: time.Now(), pong: make(chan struct{}, 1)}
	st.Lib = lv
	conn.SetReadLimit(l.ReadLimit)
	conn.SetPongHandler(func(string) error {
		lv.heardFrom(conn, time.Now())
		select {
		case lv.pong <- struct{}{}:
		default:
		}
		return nil
	})
	next := conn.CloseHandler()
	conn.SetCloseHandler(func(code int, text string) error {
		lv.closed.Store(&websocket.CloseError{Code: code, Text: text}) // for the heartbeat, when a program's own loop saw it
		return next(code, text)
	})
	lv.heardFrom(conn, time.Now())
	if l.WriteOnly {
		st.ReadForWriter(func() error {
			_, _, err := conn.NextReader()
			return lv.readFailure(err)
		}, func() { _ = conn.Close() })
	}
	return conn, nil, nil
}

// handshake dials url; ctx ending closes its socket, as gorilla bounds
// the handshake's reads and writes by ctx's deadline only.
func (l *library) handshake(ctx context.Context, url string, header http.Header) (*websocket.Conn, *http.Response, error) {
	var (
		mu   sync.Mutex
		over bool     // ctx ended: no new socket
		raw  net.Conn // the handshake's socket
	)
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		mu.Lock()
		defer mu.Unlock()
		over = true
		switch {
		case raw == nil:
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			_ = raw.SetDeadline(time.Now()) // as gorilla does: the error says "i/o timeout"
		default:
			_ = raw.Close()
		}
	})
	d := websocket.Dialer{
		Proxy:             http.ProxyFromEnvironment,
		TLSClientConfig:   l.TLS,
		Subprotocols:      l.subprotocols,
		EnableCompression: l.compression,
		NetDialContext: func(dctx context.Context, network, addr string) (net.Conn, error) {
			var nd net.Dialer
			conn, err := nd.DialContext(dctx, network, addr)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			defer mu.Unlock()
			if over {
				_ = conn.Close()
				return nil, ctx.Err()
			}
			raw = conn
			return conn, nil
		},
	}
	conn, resp, err := d.DialContext(ctx, url, header)
	if !stop() {
		<-fired // ctx ended: its socket is closed
		if err == nil {
			_ = conn.Close()
			err = ctx.Err()
		}
	}
	if dl, ok := ctx.Deadline(); err != nil && ok && !time.Now().Before(dl) {
		// gorilla's socket deadline is ctx's: its i/o timeout can come a
		// moment before ctx's own timer. Let ctx say it, so that the error
		// is the attempt's timeout.
		<-ctx.Done()
	}
	return conn, resp, err
}

// Ping writes a ping and waits for its pong until pctx ends; a message
// read since the ping counts as well: the peer is alive.
func (l *library) Ping(pctx context.Context, conn *websocket.Conn, st *httpcore.State) error {
	lv := livenessOf(st)
	select {
	case <-lv.pong: // of an earlier ping
	default:
	}
	sent := time.Now()
	deadline, _ := pctx.Deadline()
	lv.ask.Store(true) // the next message read records the time (heardFrom)
	if err := conn.WriteControl(websocket.PingMessage, nil, deadline); err != nil {
		if ce := lv.closed.Load(); ce != nil {
			return ce
		}
		if errors.Is(err, websocket.ErrCloseSent) {
			return fmt.Errorf("%w: %w", net.ErrClosed, err)
		}
		return fmt.Errorf("ping: %w", err)
	}
	select {
	case <-lv.pong:
		return nil
	case <-st.ReadDone():
		return st.ReadErr()
	case <-pctx.Done():
	}
	if lv.heardSince(sent) {
		// Messages, but no pong: alive. Ask again, so that the next message
		// moves the read deadline past the next ping's timeout.
		lv.ask.Store(true)
		return nil
	}
	return pctx.Err()
}

// heardFrom records that the peer was heard at now (a pong, the first
// message after a ping, the handshake) and moves the read deadline to
// now+within; on the reader's goroutine. Not every message: per message it
// would cost more than the read (BENCHMARKS.md, "The message and call paths").
func (lv *liveness) heardFrom(conn *websocket.Conn, now time.Time) {
	lv.mark(now)
	_ = conn.SetReadDeadline(now.Add(lv.within))
}

// mark records that the peer was heard at now.
func (lv *liveness) mark(now time.Time) { lv.heard.Store(int64(now.Sub(lv.origin))) }

// heardSince reports whether the peer was heard at or after t.
func (lv *liveness) heardSince(t time.Time) bool { return lv.heard.Load() >= int64(t.Sub(lv.origin)) }

// readFailure is an ErrHeartbeat when the read deadline passed, else err.
func (lv *liveness) readFailure(err error) error {
	if errors.Is(err, websocket.ErrReadLimit) {
		lv.tooBig.Store(true)
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return fmt.Errorf("%w: nothing heard from the peer within %v: %w", httpcore.ErrHeartbeat, lv.within, err)
	}
	return err
}

// Close writes a close frame (1000; 1001 when the supervisor drains) and, if a reader of the core reads the
// connection, lets it see the answer until CloseTimeout: it never reads
// itself, as the one reader is the program's. After a message over
// ReadLimit, whose close (1009) gorilla wrote, it lingers instead.
func (l *library) Close(conn *websocket.Conn, st *httpcore.State) error {
	if lv, ok := st.Lib.(*liveness); ok && lv.tooBig.Load() {
		l.linger(conn)
	} else if st.Polite() {
		deadline := time.Now().Add(l.CloseTimeout)
		code := websocket.CloseNormalClosure
		if st.GoingAway() {
			code = websocket.CloseGoingAway
		}
		err := conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), deadline)
		if err == nil && st.Readers() {
			t := time.NewTimer(time.Until(deadline))
			select {
			case <-st.ReadEnded():
			case <-t.C:
			}
			t.Stop()
		}
	}
	return conn.Close()
}

// linger drops what the peer still sends, until it closes the connection,
// CloseTimeout passes or ReadLimit more bytes came: closing with the rest
// of the message unread would make the kernel reset the socket, and the
// peer hear 1006, not the 1009 sent. A message of more than twice
// ReadLimit is reset all the same: draining it would cost what ReadLimit
// bounds. The reader failed for good, so the socket is free to read.
func (l *library) linger(conn *websocket.Conn) {
	const slack = 4 << 10 // the peer's close frame, and what gorilla's buffer did not hold
	raw := conn.NetConn()
	if raw.SetReadDeadline(time.Now().Add(l.CloseTimeout)) == nil {
		_, _ = io.CopyN(io.Discard, raw, min(l.ReadLimit, math.MaxInt64-slack)+slack)
	}
}

var reader = httpcore.Reader[*websocket.Conn, Message]{
	// The handshake's read deadline may have passed while OnConnect ran:
	// it counts from now, as the heartbeat's does.
	Begin: func(conn *websocket.Conn, st *httpcore.State) {
		_ = conn.SetReadDeadline(time.Now().Add(livenessOf(st).within))
	},
	Read: func(_ context.Context, conn *websocket.Conn, st *httpcore.State) (Message, error) {
		typ, data, err := conn.ReadMessage()
		lv := livenessOf(st)
		if err != nil {
			return Message{}, lv.readFailure(err)
		}
		if lv.ask.Load() { // the heartbeat pinged: tell it the peer is alive
			lv.ask.Store(false)
			lv.heardFrom(conn, time.Now())
		}
		return Message{Type: typ, Data: data}, nil
	},
	Drop: func(conn *websocket.Conn) { _ = conn.Close() },
}
