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

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/endpoint"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/internal/statuscode"
)

// Connect makes one handshake, bounded by ctx (the supervisor's
// ConnectTimeout). Its errors hold neither the URL's credentials nor the
// response body: a non-101 answer is a *HandshakeError, anything else a new
// error with redacted text that unwraps only to network and context
// errors. Each attempt has its own http.Transport, closed before Connect
// returns, so nothing of a failed attempt stays open.
func (c *connector) Connect(ctx context.Context) (*websocket.Conn, error) { return c.connectTo(ctx, 0) }

// connectTo is Connect on endpoint i.
func (c *connector) connectTo(ctx context.Context, i int) (*websocket.Conn, error) {
	st := &connState{c: c, endpoint: i}
	raw, header, tg, err := c.prepare(ctx, i)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithCancel(ctx)
	var (
		mu      sync.Mutex
		over    bool           // the attempt is over: no new dial
		dials   sync.WaitGroup // dials in progress
		rawConn net.Conn       // the last dialed connection
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
				rawConn = conn
				mu.Unlock()
			}
			return conn, err
		},
	}
	conn, resp, err := websocket.Dial(dctx, raw, &websocket.DialOptions{
		HTTPClient:      &http.Client{Transport: tr},
		HTTPHeader:      header,
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
		return nil, c.dialError(c.step("dial", st), tg, err, resp)
	}
	conn.SetReadLimit(c.o.ReadLimit)
	st.secrets, st.raw = tg, rawConn
	live.Store(conn, st)
	if c.o.WriteOnly {
		st.readDone = make(chan struct{})
		go readForWriter(conn, st)
	}
	return conn, nil
}

// dialError builds Connect's error: redacted text, a *HandshakeError for
// a non-101 answer, and only safe parts of err's chain.
func (c *connector) dialError(step string, tg redact.Target, err error, resp *http.Response) error {
	if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
		he := &HandshakeError{StatusCode: resp.StatusCode}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			he.RetryAfter = min(statuscode.RetryAfter(resp.Header.Get("Retry-After"), time.Now()), c.maxHint)
		}
		return redact.Scrubbed(fmt.Sprintf("%s: %v", step, he), he)
	}
	text := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) { // the HTTP request failed: its error repeats the URL
		text = "handshake request: " + ue.Err.Error()
	}
	// Only the parts of the chain that hold no URL, header or body stay.
	return redact.Scrubbed(fmt.Sprintf("%s: %s", step, tg.Text(text)), redact.SafeChain(err)...)
}

// prepare returns what this attempt dials with: the url, the header and
// the redactor that knows both. With BeforeConnect they are the hook's
// copies, checked again (a hook that breaks the url fails the attempt for
// good), and the connector's newest redactor learns their secrets.
func (c *connector) prepare(ctx context.Context, i int) (string, http.Header, redact.Target, error) {
	target := c.set.URLs[i]
	if c.o.BeforeConnect == nil {
		return target.Raw, c.o.Header, target.Secrets, nil
	}
	u := *target.Parsed
	if u.User != nil {
		user := *u.User
		u.User = &user
	}
	header := c.o.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	hookErr := c.o.BeforeConnect(ctx, &u, header)
	t, err := endpoint.Parse("websocket", "url", u.String(), schemes, target.Public, header)
	if err != nil {
		return "", nil, redact.Target{}, backoff.Permanent(fmt.Errorf("BeforeConnect: %w", err))
	}
	tg := c.set.Base.Join(t.Secrets)
	c.mu.Lock()
	c.latest = tg
	c.mu.Unlock()
	if hookErr != nil {
		return "", nil, tg, tg.Error(fmt.Errorf("BeforeConnect: %w", hookErr), redact.SafeChain(hookErr)...)
	}
	return t.Raw, header, tg, nil
}
