package websocket_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

// hugeFrameServer serves testkit.HugeFrame's 1 GiB frame on the first
// huge connections (all if huge < 0), then is an ordinary feed.
func hugeFrameServer(t *testing.T, huge int64) (*server, *testkit.HugeFrame) {
	hf := testkit.NewHugeFrame(t)
	return startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		if huge < 0 || s.Handshakes.Load() <= huge {
			hf.Serve(w, r)
		} else if c := s.accept(w, r); c != nil {
			s.feed(r.Context(), c)
		}
	}), hf
}

// A 1 GiB frame is refused at ReadLimit (default 1 MiB): the read fails
// with ErrMessageTooBig, the supervisor reconnects, and memory stays
// bounded.
func TestReadLimitRefusesHugeFrame(t *testing.T) {
	srv, hf := hugeFrameServer(t, 2)
	hf.AssertBounded(t, func() {
		c := run(t, srv.url("/feed"), testOptions(), true)
		st := testkit.WaitStatus(t, c, 10*time.Second, "the read limit", func(st health.Status) bool { return st.State != health.Connected && st.Err != nil })
		t.Logf("read limit %d: %v", redialws.DefaultReadLimit, st.Err)
		assert.ErrorIs(t, st.Err, websocket.ErrMessageTooBig)
		testkit.WaitStatus(t, c, 10*time.Second, "a quiet third connection", connected(3))
		require.NoError(t, c.Stop())
		srv.stop()
	})
}

// Stopping while the server streams a huge message nobody reads:
// CloseTimeout bounds the close handshake.
func TestStopIsBoundedWhileServerStreams(t *testing.T) {
	srv, _ := hugeFrameServer(t, -1)
	o := testOptions()
	o.CloseTimeout = 300 * time.Millisecond
	testkit.AssertStopBounded(t, run(t, srv.url("/feed"), o, false), o.CloseTimeout)
}

// A message over ReadLimit that the server sends again on every connect
// (a snapshot too big for the limit) ends the feed after three breaks,
// instead of reconnecting forever.
func TestPoisonMessageEndsTheFeed(t *testing.T) {
	srv, _ := hugeFrameServer(t, -1)
	o := testOptions()
	o.ReadLimit = 4 << 10
	testkit.AssertPoisonEnds(t, run(t, srv.url("/feed"), o, true), websocket.ErrMessageTooBig, srv.Handshakes.Load)
}
