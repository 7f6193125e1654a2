package websocket

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/internal/statuscode"
)

// Connect makes one handshake, bounded by ctx (the supervisor's
// ConnectTimeout). Its errors hold neither the URL's credentials nor the
// response body: a non-101 answer is a *HandshakeError, anything else a new
// error with redacted text that unwraps only to network and context
// errors. Each attempt has its own http.Transport, closed before Connect
// returns, so nothing of a failed attempt stays open.
func (c *connector) Connect(ctx context.Context) (*websocket.Conn, error) {
	dctx, cancel := context.WithCancel(ctx)
	var (
		mu    sync.Mutex
		over  bool           // the attempt is over: no new dial
		dials sync.WaitGroup // dials in progress
		raw   net.Conn       // the last dialed connection
	)
	tr := &http.Transport{
		Proxy:             http.ProxyFromEnvironment,
		TLSClientConfig:   c.o.TLSConfig,
		DisableKeepAlives: true,
		DialContext: func(_ context.Context, network, addr string) (net.Conn, error) {
			// The transport detaches dials from the request; tie this one
			// to the attempt so that it ends with it.
			mu.Lock()
			if over {
				mu.Unlock()
				return nil, context.Canceled
			}
			dials.Add(1)
			mu.Unlock()
			defer dials.Done()
			var d net.Dialer
			conn, err := d.DialContext(dctx, network, addr)
			if err == nil {
				mu.Lock()
				raw = conn
				mu.Unlock()
			}
			return conn, err
		},
	}
	conn, resp, err := websocket.Dial(dctx, c.target.raw, &websocket.DialOptions{
		HTTPClient:      &http.Client{Transport: tr},
		HTTPHeader:      c.o.Header,
		Subprotocols:    c.o.Subprotocols,
		CompressionMode: c.o.CompressionMode,
	})
	cancel()
	mu.Lock()
	over = true
	mu.Unlock()
	tr.CloseIdleConnections()
	dials.Wait()
	if err != nil {
		return nil, c.dialError(err, resp)
	}
	conn.SetReadLimit(c.o.ReadLimit)
	st := &connState{c: c, raw: raw}
	live.Store(conn, st)
	if c.o.WriteOnly {
		st.readDone = make(chan struct{})
		go readForWriter(conn, st)
	}
	return conn, nil
}

// dialError builds Connect's error: redacted text, a *HandshakeError for
// a non-101 answer, and only safe parts of err's chain.
func (c *connector) dialError(err error, resp *http.Response) error {
	if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
		he := &HandshakeError{StatusCode: resp.StatusCode}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			he.RetryAfter = min(statuscode.RetryAfter(resp.Header.Get("Retry-After"), time.Now()), c.maxHint)
		}
		return redact.Scrubbed(fmt.Sprintf("%s: %v", c.dial, he), he)
	}
	text := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) { // the HTTP request failed: its error repeats the URL
		text = "handshake request: " + ue.Err.Error()
	}
	// Only the parts of the chain that hold no URL, header or body stay.
	return redact.Scrubbed(fmt.Sprintf("%s: %s", c.dial, c.target.redact(text)), safeChain(err)...)
}
