package gorilla_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

// hugeFrameServer serves testkit.HugeFrame's 1 GiB frame on the first
// huge connections (all if huge < 0), then is an ordinary feed.
func hugeFrameServer(t *testing.T, huge int64) (*server, *testkit.HugeFrame) {
	hf := testkit.NewHugeFrame(t)
	return httpServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		if huge < 0 || s.Handshakes.Load() <= huge {
			hf.Serve(w, r)
		} else if p := s.accept(w, r, acceptOpts{}); p != nil {
			s.feed(r.Context(), p)
		}
	}), hf
}

// A 1 GiB frame is refused at ReadLimit (default 1 MiB): the read fails
// with websocket.ErrReadLimit, the supervisor reconnects, and memory stays
// bounded.
func TestReadLimitRefusesHugeFrame(t *testing.T) {
	srv, hf := hugeFrameServer(t, 2)
	hf.AssertBounded(t, func() {
		c := run(t, srv.url("/feed"), testOptions(), true)
		st := testkit.WaitStatus(t, c, 10*time.Second, "the read limit", func(st health.Status) bool { return st.State != health.Connected && st.Err != nil })
		t.Logf("read limit %d: %v", gorilla.DefaultReadLimit, st.Err)
		assert.ErrorIs(t, st.Err, websocket.ErrReadLimit)
		testkit.WaitStatus(t, c, 10*time.Second, "a quiet third connection", connected(3))
		require.NoError(t, c.Stop())
		srv.stop()
	})
}

// An ordinary message one byte over Options.ReadLimit, from either
// library's server: the read fails with websocket.ErrReadLimit, the
// server hears 1009 (message too big), and the client reconnects; a
// message at the limit passes.
func TestReadLimitOption(t *testing.T) {
	const limit = 1000
	eachImpl(t, func(t *testing.T, im impl) {
		got := make(chan int, 4)
		srv := startServer(t, im, func(s *server, w http.ResponseWriter, r *http.Request) {
			p := s.accept(w, r, acceptOpts{})
			if p == nil {
				return
			}
			defer s.Forget(p)
			size := limit
			if s.Handshakes.Load() == 1 {
				size++
			}
			if p.write(r.Context(), websocket.BinaryMessage, bytes.Repeat([]byte("x"), size)) != nil {
				return
			}
			_, _, err := p.read(r.Context())
			got <- s.im.closeCode(err)
		})
		o := testOptions()
		o.ReadLimit = limit
		c := run(t, srv.url("/feed"), o, true)
		select {
		case err := <-c.ReadErrs:
			assert.ErrorIs(t, err, websocket.ErrReadLimit)
		case <-time.After(5 * time.Second):
			t.Fatal("a message over the limit was read")
		}
		assert.Equal(t, websocket.CloseMessageTooBig, <-got, "the server heard why")
		testkit.WaitStatus(t, c, 5*time.Second, "a second connection", connected(2))
		require.NoError(t, c.Stop())
		assert.Equal(t, websocket.CloseNormalClosure, <-got, "the second message passed; the stop said goodbye")
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
	testkit.AssertPoisonEnds(t, run(t, srv.url("/feed"), o, true), websocket.ErrReadLimit, srv.Handshakes.Load)
}
