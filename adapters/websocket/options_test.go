package websocket_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/supervisor"
)

// The headers the handshake sets itself are refused, at New and from
// BeforeConnect, as gorilla's Dialer refuses them: set, they would break
// every handshake.
func TestNewRefusesHandshakeHeaders(t *testing.T) {
	for _, h := range []string{"Sec-WebSocket-Extensions", "sec-websocket-key", "Sec-WebSocket-Version", "Sec-WebSocket-Accept", "Sec-WebSocket-Protocol", "Upgrade", "Connection"} {
		_, err := redialws.New("ws://h/x", redialws.Options{Header: http.Header{h: {"permessage-deflate"}}})
		assert.EqualError(t, err, `websocket: Header "`+http.CanonicalHeaderKey(h)+`": set by the handshake`)
		assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
	}
	srv := startServer(t, nil)
	o := testOptions()
	o.BeforeConnect = func(_ context.Context, _ *url.URL, h http.Header) error {
		h.Set("Sec-WebSocket-Extensions", "permessage-deflate")
		return nil
	}
	c := run(t, srv.url("/feed"), o, false)
	select {
	case <-c.Ended:
	case <-time.After(10 * time.Second):
		t.Fatalf("still trying after %d handshakes", srv.Handshakes.Load())
	}
	err := c.Stop()
	assert.ErrorIs(t, err, supervisor.ErrFailed)
	assert.Contains(t, err.Error(), `BeforeConnect: websocket: Header "Sec-Websocket-Extensions": set by the handshake`)
	assert.Zero(t, srv.Handshakes.Load(), "no handshake was tried")
}

// New copies Options: changing the caller's Header or Subprotocols
// afterwards changes nothing of the supervisor's handshakes.
func TestNewCopiesOptions(t *testing.T) {
	got := make(chan http.Header, 4)
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		if c := s.accept(w, r); c != nil {
			s.feed(r.Context(), c)
		}
	})
	o := testOptions()
	o.Header = http.Header{"X-Room": {"lobby"}}
	o.Subprotocols = []string{"prices.v1"}
	c := run(t, srv.url("/feed"), o, true)
	o.Header.Set("X-Room", "changed")
	o.Subprotocols[0] = "changed"
	h := <-got
	assert.Equal(t, "lobby", h.Get("X-Room"))
	assert.Equal(t, "prices.v1", h.Get("Sec-WebSocket-Protocol"))
	require.NoError(t, c.Stop())
}
