package gorilla

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/endpoint"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/internal/statuscode"
)

// Connect makes one handshake on the url, bounded by ctx (the
// supervisor's ConnectTimeout, and its stop): BeforeConnect first, if set,
// then gorilla/websocket's Dialer. Its errors hold neither the URL's nor
// the header's credentials, nor the response body: a non-101 answer is a
// *HandshakeError, anything else a new error with redacted text that
// unwraps only to network and context errors. Nothing of a failed attempt
// stays open.
func (c *connector) Connect(ctx context.Context) (*websocket.Conn, error) { return c.connectTo(ctx, 0) }

// connectTo is Connect on endpoint i.
func (c *connector) connectTo(ctx context.Context, i int) (*websocket.Conn, error) {
	st := &connState{endpoint: i}
	req, err := c.prepare(ctx, i)
	if err != nil {
		return nil, err
	}
	conn, err := c.handshake(ctx, c.step("dial", st), req)
	if err != nil {
		return nil, err
	}
	st.secrets = req.secrets
	st.within = c.o.PingInterval + c.o.PingTimeout
	st.pong = make(chan struct{}, 1)
	st.readEnded = make(chan struct{})
	conn.SetReadLimit(c.o.ReadLimit)
	conn.SetPongHandler(st.onPong(conn))
	conn.SetCloseHandler(st.onClose(conn.CloseHandler()))
	st.heardFrom(conn, time.Now())
	live.Store(conn, st)
	if c.o.WriteOnly {
		st.readers.Store(1)
		st.readDone = make(chan struct{})
		go readForWriter(conn, st)
	}
	return conn, nil
}

// prepare returns what this attempt dials with: the url, the header and
// the redactor that knows both. With BeforeConnect they are the hook's
// copies, checked again (a hook that breaks the url fails the attempt for
// good), and the connector's newest redactor learns their secrets.
func (c *connector) prepare(ctx context.Context, i int) (request, error) {
	if c.o.BeforeConnect == nil {
		c.setLatest(c.fixed[i].secrets)
		return c.fixed[i], nil
	}
	u := *c.set.URLs[i].Parsed
	header := c.o.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	hookErr := c.o.BeforeConnect(ctx, &u, header)
	t, err := endpoint.Parse("gorilla", "url", u.String(), schemes, c.o.PublicQuery, header)
	if err != nil {
		return request{}, backoff.Permanent(fmt.Errorf("BeforeConnect: %w", err))
	}
	req := c.request(t.Parsed, header, c.set.Base.Join(t.Secrets))
	c.setLatest(req.secrets)
	if hookErr != nil {
		return request{}, req.secrets.Error(fmt.Errorf("BeforeConnect: %w", hookErr), redact.SafeChain(hookErr)...)
	}
	return req, nil
}

// handshake dials req with a Dialer of its own, tied to ctx: a ctx that
// ends ends the handshake under way, whose reads and writes
// gorilla/websocket bounds by ctx's deadline only — the supervisor
// stopping closes its socket.
func (c *connector) handshake(ctx context.Context, step string, req request) (*websocket.Conn, error) {
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
		TLSClientConfig:   c.o.TLSConfig,
		Subprotocols:      c.o.Subprotocols,
		EnableCompression: c.o.EnableCompression,
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
	conn, resp, err := d.DialContext(ctx, req.url, req.header)
	if !stop() {
		<-fired // ctx ended: its socket is closed
		if err == nil {
			_ = conn.Close()
			err = ctx.Err()
		}
	}
	if err != nil {
		if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
			// gorilla's socket deadline is ctx's: its i/o timeout can come
			// a moment before ctx's own timer. Let ctx say it, so that the
			// error is the attempt's timeout.
			<-ctx.Done()
		}
		return nil, c.dialError(ctx, step, err, resp, req.secrets)
	}
	return conn, nil
}

// dialError builds Connect's error: redacted text, a *HandshakeError for
// a non-101 answer (only its status and Retry-After are read), and only
// safe parts of err's chain, with ctx's end when it ended the attempt.
func (c *connector) dialError(ctx context.Context, step string, err error, resp *http.Response, tg redact.Target) error {
	if resp != nil && errors.Is(err, websocket.ErrBadHandshake) {
		if resp.StatusCode != http.StatusSwitchingProtocols {
			he := &HandshakeError{StatusCode: resp.StatusCode}
			if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
				he.RetryAfter = min(statuscode.RetryAfter(resp.Header.Get("Retry-After"), time.Now()), c.maxHint)
			}
			return redact.Scrubbed(fmt.Sprintf("%s: %v", step, he), he)
		}
		return redact.Scrubbed(fmt.Sprintf("%s: handshake: server answered 101 without a valid WebSocket upgrade", step), websocket.ErrBadHandshake)
	}
	keep := redact.SafeChain(err)
	if ctx.Err() != nil {
		keep = append(keep, ctx.Err())
	}
	return redact.Scrubbed(fmt.Sprintf("%s: handshake request: %s", step, tg.Text(err.Error())), keep...)
}
