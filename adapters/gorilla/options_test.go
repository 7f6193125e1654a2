package gorilla_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/supervisor"
)

// The headers the handshake sets itself are refused: the same rule as
// adapters/websocket's, Sec-WebSocket-Accept and -Protocol included.
func TestNewRefusesHandshakeHeaders(t *testing.T) {
	for _, h := range []string{"Upgrade", "sec-websocket-key", "Connection", "Sec-WebSocket-Version", "Sec-WebSocket-Extensions", "Sec-WebSocket-Accept", "Sec-WebSocket-Protocol"} {
		_, err := gorilla.New("ws://h/x", gorilla.Options{Header: http.Header{h: {"x"}}})
		assert.EqualError(t, err, `gorilla: Header "`+http.CanonicalHeaderKey(h)+`": set by the handshake`)
		assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
	}
}

// New copies Options: changing the caller's Header or Subprotocols
// afterwards changes nothing of the supervisor's handshakes.
func TestNewCopiesOptions(t *testing.T) {
	got := make(chan http.Header, 4)
	srv := startServer(t, impls[0], func(s *server, w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		if p := s.accept(w, r, acceptOpts{}); p != nil {
			s.feed(r.Context(), p)
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
