package httpcore

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// Transport is an http.Transport of one attempt or stream: nothing is
// pooled, and every dial is tied to ctx (net/http may detach a dial from
// its request) and ended with it.
type Transport struct {
	*http.Transport
	mu    sync.Mutex
	over  bool           // no new dial
	dials sync.WaitGroup // dials in progress
	last  net.Conn       // the last dialed connection
}

// NewTransport returns a Transport whose dials end with ctx.
func (c *Core) NewTransport(ctx context.Context) *Transport {
	t := &Transport{}
	t.Transport = &http.Transport{
		Proxy:             http.ProxyFromEnvironment,
		TLSClientConfig:   c.TLS,
		DisableKeepAlives: true,
		DialContext: func(_ context.Context, network, addr string) (net.Conn, error) {
			t.mu.Lock()
			if t.over {
				t.mu.Unlock()
				return nil, context.Canceled
			}
			t.dials.Add(1)
			t.mu.Unlock()
			defer t.dials.Done()
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err == nil {
				t.mu.Lock()
				t.last = conn
				t.mu.Unlock()
			}
			return conn, err
		},
	}
	return t
}

// End allows no new dial, closes the idle connections and waits for the
// dials in progress (end their ctx first).
func (t *Transport) End() {
	t.mu.Lock()
	t.over = true
	t.mu.Unlock()
	t.CloseIdleConnections()
	t.dials.Wait()
}

// Last returns the connection dialed last, nil if none.
func (t *Transport) Last() net.Conn {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}
