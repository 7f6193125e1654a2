package testkit

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
)

// Limits are the options of a WebSocket client a shared check sets; zero
// means the default.
type Limits struct {
	ReadLimit    int64
	CloseTimeout time.Duration
}

// AssertReadLimits checks a WebSocket adapter's ReadLimit against serve's
// server, whose handler answers with huge when it returns true and is an
// ordinary feed otherwise; start runs a client (reading when read), and
// tooBig is the library's error past ReadLimit:
//   - a 1 GiB frame is refused at the default ReadLimit, the supervisor
//     reconnects, and memory stays bounded;
//   - a stop while the server streams it, unread, is bounded by CloseTimeout;
//   - a message over ReadLimit sent again on every connect ends the feed
//     after three breaks, instead of reconnecting forever.
func AssertReadLimits[P, C comparable](t *testing.T, tooBig error,
	serve func(t *testing.T, huge func(http.ResponseWriter, *http.Request) bool) *HTTPServer[P],
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
