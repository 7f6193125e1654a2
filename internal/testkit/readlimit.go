package testkit

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// Limits are the options of a WebSocket client a shared check sets; zero
// means the default.
type Limits struct {
	ReadLimit    int64
	CloseTimeout time.Duration
}

// FeedWith starts an adapter's test server: first sees each request and,
// when it returns true, has answered it; the rest get an ordinary feed.
type FeedWith[P comparable] func(t *testing.T, first func(http.ResponseWriter, *http.Request) bool) *HTTPServer[P]

// AssertReadLimits checks a WebSocket adapter's ReadLimit against serve's
// server; start runs a client (reading when read), and tooBig is the
// library's error past ReadLimit:
//   - a 1 GiB frame is refused at the default ReadLimit, the supervisor
//     reconnects, and memory stays bounded;
//   - a stop while the server streams it, unread, is bounded by CloseTimeout;
//   - a message over ReadLimit sent again on every connect ends the feed
//     after three breaks, instead of reconnecting forever.
func AssertReadLimits[P, C comparable](t *testing.T, tooBig error,
	serve FeedWith[P],
	start func(t *testing.T, url string, l Limits, read bool) *Client[C]) {
	hugeServer := func(t *testing.T, first int64) (*HTTPServer[P], *HugeFrame) {
		hf := NewHugeFrame(t)
		var seen atomic.Int64
		srv := serve(t, func(w http.ResponseWriter, r *http.Request) bool {
			if seen.Add(1) > first && first >= 0 {
				return false
			}
			hf.Serve(w, r)
			return true
		})
		return srv, hf
	}
	t.Run("HugeFrame", func(t *testing.T) {
		srv, hf := hugeServer(t, 2)
		hf.AssertBounded(t, func() {
			c := start(t, srv.URL("/feed"), Limits{}, true)
			st := WaitStatus(t, c, 10*time.Second, "the read limit", func(st health.Status) bool { return st.State != health.Connected && st.Err != nil })
			t.Logf("default read limit: %v", st.Err)
			assert.ErrorIs(t, st.Err, tooBig)
			WaitStatus(t, c, 10*time.Second, "a quiet third connection", Connected(3))
			require.NoError(t, c.Stop())
			srv.Stop()
		})
	})
	t.Run("StopWhileStreaming", func(t *testing.T) {
		srv, _ := hugeServer(t, -1)
		l := Limits{CloseTimeout: 300 * time.Millisecond}
		AssertStopBounded(t, start(t, srv.URL("/feed"), l, false), l.CloseTimeout)
	})
	t.Run("Poison", func(t *testing.T) {
		srv, _ := hugeServer(t, -1)
		AssertPoisonEnds(t, start(t, srv.URL("/feed"), Limits{ReadLimit: 4 << 10}, true), tooBig, srv.Handshakes.Load)
	})
}

// AssertCopiesOptions checks that New copies Options: start makes a client
// of url whose Options hold header and subprotocols as given; changing
// them afterwards changes nothing of the handshakes serve's server sees.
func AssertCopiesOptions[P, C comparable](t *testing.T, serve FeedWith[P],
	start func(t *testing.T, url string, header http.Header, subprotocols []string) *Client[C]) {
	got := make(chan http.Header, 4)
	srv := serve(t, func(_ http.ResponseWriter, r *http.Request) bool { got <- r.Header.Clone(); return false })
	header, subprotocols := http.Header{"X-Room": {"lobby"}}, []string{"prices.v1"}
	c := start(t, srv.URL("/feed"), header, subprotocols)
	header.Set("X-Room", "changed")
	subprotocols[0] = "changed"
	h := <-got
	assert.Equal(t, "lobby", h.Get("X-Room"))
	assert.Equal(t, "prices.v1", h.Get("Sec-WebSocket-Protocol"))
	require.NoError(t, c.Stop())
}

// AssertRefusesHandshakeHeaders checks that newWith, New with Options
// holding header, refuses the headers a WebSocket handshake sets itself.
func AssertRefusesHandshakeHeaders(t *testing.T, pkg string, newWith func(header http.Header) error) {
	for _, h := range []string{"Sec-WebSocket-Extensions", "sec-websocket-key", "Sec-WebSocket-Version", "Sec-WebSocket-Accept", "Sec-WebSocket-Protocol", "Upgrade", "Connection"} {
		err := newWith(http.Header{h: {"permessage-deflate"}})
		assert.EqualError(t, err, pkg+`: Header "`+http.CanonicalHeaderKey(h)+`": set by the handshake`)
		assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
	}
}
