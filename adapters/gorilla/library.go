package gorilla

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/httpcore"
)

// library is gorilla/websocket under the core: the handshake, the ping
// written beside the program's writer, the close frame and the reads.
type library struct {
	*httpcore.Core
	subprotocols []string
	compression  bool
}

// liveness is what the heartbeat and the reader of one connection share,
// the core State's Lib.
type liveness struct {
	within time.Duration // PingInterval + PingTimeout: the read deadline after a pong or message (see heardFrom)
	heard  atomic.Int64  // UnixNano of the last pong or message read
	ask    atomic.Bool   // a ping was written: the next message read is to be recorded (see heardFrom)
	pong   chan struct{} // a pong came (buffered, one): wakes the heartbeat
	closed atomic.Pointer[websocket.CloseError]
}

func livenessOf(st *httpcore.State) *liveness { return st.Lib.(*liveness) }

// Dial makes one handshake with a Dialer of its own, tied to ctx: a ctx
// that ends ends the handshake under way, whose reads and writes
// gorilla/websocket bounds by ctx's deadline only. The url's userinfo is
// sent as Basic authorization unless the header has one (gorilla's Dialer
// refuses it in the url).
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
	lv := &liveness{within: l.PingInterval + l.PingTimeout, pong: make(chan struct{}, 1)}
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

// handshake dials url; the supervisor stopping closes its socket.
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

// Ping is the heartbeat's: a ping written with WriteControl, which
// gorilla/websocket allows beside the program's writer, and its pong
// awaited until pctx ends. A message read since the ping was written
// counts as well: the peer is alive.
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
	if lv.heard.Load() >= sent.UnixNano() {
		// Messages, but no pong: the peer is alive. Ask again, so that the
		// read deadline moves past the next ping's timeout with the next
		// message (heardFrom).
		lv.ask.Store(true)
		return nil
	}
	return pctx.Err()
}

// heardFrom records that the peer was heard at now (a pong, a message
// read after a ping, the handshake) and moves the read deadline to within
// from then. It runs on the reader's goroutine (a pong handler runs inside
// the read).
//
// A message is recorded only when the heartbeat asks (ask, set as it
// writes a ping): a clock reading and a deadline moved per message cost
// more than the rest of reading a small one (BENCHMARKS.md, "The message
// and call paths"), and what the heartbeat needs to know is whether
// anything came after its ping.
func (lv *liveness) heardFrom(conn *websocket.Conn, now time.Time) {
	lv.heard.Store(now.UnixNano())
	_ = conn.SetReadDeadline(now.Add(lv.within))
}

// readFailure says why a read failed: an ErrHeartbeat when the read
// deadline passed, else err.
func (lv *liveness) readFailure(err error) error {
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return fmt.Errorf("%w: nothing heard from the peer within %v: %w", httpcore.ErrHeartbeat, lv.within, err)
	}
	return err
}

// Close writes a close frame (1000, normal closure) within CloseTimeout
// and, when a reader of the core reads the connection, waits for it to
// see the server's answer, at most until CloseTimeout has passed, before
// it drops the connection. It never reads itself: gorilla/websocket allows
// one reader, and it is the program's.
func (l *library) Close(conn *websocket.Conn, st *httpcore.State) error {
	if st.Polite() {
		deadline := time.Now().Add(l.CloseTimeout)
		err := conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), deadline)
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

// reader reads whole messages: what Messages ranges over.
var reader = httpcore.Reader[*websocket.Conn, Message]{
	// The deadline the handshake set may have passed while OnConnect ran
	// and nothing read: it counts from now, as the heartbeat (which began
	// with Connected) does.
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
