package websocket_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
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

// Stopping while the server streams a huge message nobody reads: the close
// handshake would discard it all; CloseTimeout bounds it.
func TestStopIsBoundedWhileServerStreams(t *testing.T) {
	srv, _ := hugeFrameServer(t, -1)
	o := testOptions()
	o.CloseTimeout = 300 * time.Millisecond
	c := run(t, srv.url("/feed"), o, false)
	testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
	began := time.Now()
	require.NoError(t, c.Stop())
	took := time.Since(began)
	t.Logf("Run returned %v after the stop (CloseTimeout %v)", took, o.CloseTimeout)
	assert.Less(t, took, o.CloseTimeout+500*time.Millisecond)
}

// A message over ReadLimit that the server sends again on every connect
// (a snapshot too big for the limit) breaks three connections at the same
// place, then the supervisor gives up with an error that names ReadLimit,
// instead of reconnecting forever.
func TestPoisonMessageEndsTheFeed(t *testing.T) {
	srv, _ := hugeFrameServer(t, -1)
	o := testOptions()
	o.ReadLimit = 4 << 10
	c := run(t, srv.url("/feed"), o, false)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var errs []error
	for _, err := range redialws.Messages(ctx, c.Supervisor) {
		require.Error(t, err)
		errs = append(errs, err)
	}
	require.NoError(t, ctx.Err(), "still reconnecting after %d handshakes", srv.Handshakes.Load())
	<-c.Ended
	err := c.Stop()
	assert.ErrorIs(t, err, supervisor.ErrFailed)
	assert.ErrorIs(t, err, websocket.ErrMessageTooBig)
	assert.Contains(t, err.Error(), "a message over ReadLimit (4096 bytes) broke 3 connections in a row at the same place: giving up")
	assert.Len(t, errs, 3)
	assert.Equal(t, int64(3), srv.Handshakes.Load())
}
