package testkit

import (
	"context"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// WSOptions are the options of a WebSocket client a shared check sets: an
// adapter's start copies each into its Options (zero means the default)
// and reads Messages when Read is true.
type WSOptions struct {
	Header        http.Header
	BeforeConnect func(context.Context, *url.URL, http.Header) error
	Subprotocols  []string
	ReadLimit     int64
	PingInterval  time.Duration
	PingTimeout   time.Duration
	CloseTimeout  time.Duration
	Settings      supervisor.Settings // SocketSettings, changed by the check
	WriteOnly     bool
	Read          bool
}

// StartWS runs a client of url with w's options, as a WebSocket adapter's
// tests do.
type StartWS[C comparable] func(t *testing.T, url string, w WSOptions) *Client[C]

// AssertWebSocket runs the checks every WebSocket adapter keeps against
// its own library's server (serve) and client (start); tooBig is the
// library's error past ReadLimit.
func AssertWebSocket[P, C comparable](t *testing.T, tooBig error, serve FeedWith[P], start StartWS[C]) {
	t.Run("ReadLimit", func(t *testing.T) { AssertReadLimits(t, tooBig, serve, start) })
	t.Run("CopiesOptions", func(t *testing.T) { AssertCopiesOptions(t, serve, start) })
	t.Run("FlappingNeverResets", func(t *testing.T) { AssertFlappingNeverResets(t, serve, start) })
	t.Run("HandshakeBounded", func(t *testing.T) { AssertHandshakeBounded(t, start) })
}

// Socket returns w with SocketSettings and Read.
func Socket(read bool) WSOptions { return WSOptions{Settings: SocketSettings(), Read: read} }

// FeedWith starts an adapter's test server: first sees each request and,
// when it returns true, has answered it; the rest get an ordinary feed.
type FeedWith[P comparable] func(t *testing.T, first func(http.ResponseWriter, *http.Request) bool) *HTTPServer[P]

// AssertReadLimits checks a WebSocket adapter's ReadLimit against serve's
// server and start's client; tooBig is the library's error past ReadLimit:
//   - a 1 GiB frame is refused at the default ReadLimit, the supervisor
//     reconnects, and memory stays bounded;
//   - a stop while the server streams it, unread, is bounded by CloseTimeout;
//   - a message over ReadLimit sent again on every connect ends the feed
//     after three breaks, instead of reconnecting forever.
func AssertReadLimits[P, C comparable](t *testing.T, tooBig error,
	serve FeedWith[P],
	start StartWS[C]) {
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
			c := start(t, srv.URL("/feed"), Socket(true))
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
		w := Socket(false)
		w.CloseTimeout = 300 * time.Millisecond
		AssertStopBounded(t, start(t, srv.URL("/feed"), w), w.CloseTimeout)
	})
	t.Run("Poison", func(t *testing.T) {
		srv, _ := hugeServer(t, -1)
		w := Socket(true)
		w.ReadLimit = 4 << 10
		AssertPoisonEnds(t, start(t, srv.URL("/feed"), w), tooBig, srv.Handshakes.Load)
	})
}

// AssertCopiesOptions checks that New copies Options: changing the Header
// and Subprotocols start was given afterwards changes nothing of the
// handshakes serve's server sees.
func AssertCopiesOptions[P, C comparable](t *testing.T, serve FeedWith[P], start StartWS[C]) {
	got := make(chan http.Header, 4)
	srv := serve(t, func(_ http.ResponseWriter, r *http.Request) bool { got <- r.Header.Clone(); return false })
	w := Socket(true)
	header, subprotocols := http.Header{"X-Room": {"lobby"}}, []string{"prices.v1"}
	w.Header, w.Subprotocols = header, subprotocols
	c := start(t, srv.URL("/feed"), w)
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

// CloseSeen starts an adapter's test server that reads until the
// connection ends and sends the close code it read (-1: none, the
// connection just dropped).
type CloseSeen func(t *testing.T) (url string, got <-chan int)

// AssertStopCloses checks that stopping the supervisor closes a healthy
// connection with a close frame: closeSeen's server reads 1000 (normal
// closure), whoever reads on the client's side: the program (Messages),
// the adapter (WriteOnly), or nobody.
func AssertStopCloses[C comparable](t *testing.T, closeSeen CloseSeen, start StartWS[C]) {
	for name, m := range map[string]struct{ read, writeOnly bool }{
		"program reads": {true, false},
		"WriteOnly":     {false, true},
		"nobody reads":  {false, false},
	} {
		t.Run(name, func(t *testing.T) {
			url, got := closeSeen(t)
			w := Socket(m.read)
			w.WriteOnly = m.writeOnly
			c := start(t, url, w)
			WaitStatus(t, c, 5*time.Second, "connection", Connected(1))
			require.NoError(t, c.Stop())
			assert.Equal(t, 1000, Receive(t, got, "close seen by the server"))
		})
	}
}
