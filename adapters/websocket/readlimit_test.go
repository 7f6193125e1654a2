package websocket_test

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"net"
	"net/http"
	"runtime"
	"sync"
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

// hugeFrameServer completes the handshake by hand, then streams one binary
// frame that announces 1 GiB, from a reused 64 KiB buffer, until the client
// hangs up; after the first huge connections (all if huge < 0), it is an
// ordinary feed. It records the most bytes it managed to send on one
// connection, and the longest it streamed before the client hung up.
func hugeFrameServer(t *testing.T, huge int64) (*server, *streamed) {
	var most streamed
	var mu sync.Mutex
	var raws []net.Conn
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		if huge >= 0 && s.handshakes.Load() > huge {
			if c := s.accept(w, r); c != nil {
				s.feed(r.Context(), c)
			}
			return
		}
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		raw, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		mu.Lock()
		raws = append(raws, raw)
		mu.Unlock()
		defer raw.Close()
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n")
		header := []byte{0x82, 127, 0, 0, 0, 0, 0, 0, 0, 0} // FIN, binary, 64-bit length
		binary.BigEndian.PutUint64(header[2:], 1<<30)
		_, _ = rw.Write(header)
		if rw.Flush() != nil {
			return
		}
		chunk := make([]byte, 64<<10)
		var sent int64
		began := time.Now()
		for sent < 1<<30 {
			n, err := raw.Write(chunk)
			sent += int64(n)
			if err != nil {
				break
			}
		}
		most.record(sent, time.Since(began))
	})
	t.Cleanup(func() { // before the server's own cleanup: unblock any writer
		mu.Lock()
		defer mu.Unlock()
		for _, c := range raws {
			_ = c.Close()
		}
	})
	return srv, &most
}

type streamed struct {
	mu      sync.Mutex
	bytes   int64
	longest time.Duration
}

func (s *streamed) record(n int64, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bytes, s.longest = max(s.bytes, n), max(s.longest, d)
}

func (s *streamed) get() (int64, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes, s.longest
}

// A 1 GiB frame is refused at ReadLimit (default 1 MiB): the read fails
// with ErrMessageTooBig, the supervisor reconnects, and memory stays
// bounded.
func TestReadLimitRefusesHugeFrame(t *testing.T) {
	srv, most := hugeFrameServer(t, 2)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	o := testOptions()
	c := run(t, srv.url("/feed"), o, true)
	st := testkit.WaitStatus(t, c, 10*time.Second, "the read limit", func(st health.Status) bool { return st.State != health.Connected && st.Err != nil })
	assert.ErrorIs(t, st.Err, websocket.ErrMessageTooBig)
	testkit.WaitStatus(t, c, 10*time.Second, "a quiet third connection", connected(3))
	require.NoError(t, c.stop())
	srv.stop()

	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	sent, longest := most.get()
	t.Logf("read limit %d: %v; allocated %d MiB in all; most sent on one connection before the client hung up: %d MiB, after %v",
		redialws.DefaultReadLimit, st.Err, allocated>>20, sent>>20, longest)
	assert.Less(t, allocated, uint64(64<<20), "memory stays bounded")
	assert.Less(t, sent, int64(64<<20), "the client stopped reading near the limit")
	assert.Less(t, longest, time.Second, "the client hung up at once, without a close handshake that reads on")
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
	require.NoError(t, c.stop())
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
	require.NoError(t, ctx.Err(), "still reconnecting after %d handshakes", srv.handshakes.Load())
	<-c.done
	err := c.stop()
	assert.ErrorIs(t, err, supervisor.ErrFailed)
	assert.ErrorIs(t, err, websocket.ErrMessageTooBig)
	assert.Contains(t, err.Error(), "a message over ReadLimit (4096 bytes) broke 3 connections in a row at the same place: giving up")
	assert.Len(t, errs, 3)
	assert.Equal(t, int64(3), srv.handshakes.Load())
}
