package gorilla_test

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"net"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
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
	srv := httpServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		if huge >= 0 && s.handshakes.Load() > huge {
			if p := s.accept(w, r, acceptOpts{}); p != nil {
				s.feed(r.Context(), p)
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
// with websocket.ErrReadLimit, the supervisor reconnects, and memory stays
// bounded.
func TestReadLimitRefusesHugeFrame(t *testing.T) {
	srv, most := hugeFrameServer(t, 2)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	o := testOptions()
	c := run(t, srv.url("/feed"), o, true)
	st := testkit.WaitStatus(t, c, 10*time.Second, "the read limit", func(st health.Status) bool { return st.State != health.Connected && st.Err != nil })
	assert.ErrorIs(t, st.Err, websocket.ErrReadLimit)
	testkit.WaitStatus(t, c, 10*time.Second, "a quiet third connection", connected(3))
	require.NoError(t, c.stop())
	srv.stop()

	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	sent, longest := most.get()
	t.Logf("read limit %d: %v; allocated %d MiB in all; most sent on one connection before the client hung up: %d MiB, after %v",
		gorilla.DefaultReadLimit, st.Err, allocated>>20, sent>>20, longest)
	assert.Less(t, allocated, uint64(64<<20), "memory stays bounded")
	assert.Less(t, sent, int64(64<<20), "the client stopped reading near the limit")
	assert.Less(t, longest, time.Second, "the client hung up at once, without a close handshake that reads on")
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
			defer s.forget(p)
			size := limit
			if s.handshakes.Load() == 1 {
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
		case err := <-c.readErrs:
			assert.ErrorIs(t, err, websocket.ErrReadLimit)
		case <-time.After(5 * time.Second):
			t.Fatal("a message over the limit was read")
		}
		assert.Equal(t, websocket.CloseMessageTooBig, <-got, "the server heard why")
		testkit.WaitStatus(t, c, 5*time.Second, "a second connection", connected(2))
		require.NoError(t, c.stop())
		assert.Equal(t, websocket.CloseNormalClosure, <-got, "the second message passed; the stop said goodbye")
	})
}

// Stopping while the server streams a huge message nobody reads: Close
// writes its close frame and drops the connection; nothing reads on.
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
// breaks three connections at the same place; then the supervisor gives
// up with an error that names ReadLimit, instead of reconnecting forever.
func TestPoisonMessageEndsTheFeed(t *testing.T) {
	srv, _ := hugeFrameServer(t, -1)
	o := testOptions()
	o.ReadLimit = 4 << 10
	c := run(t, srv.url("/feed"), o, true)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("still reconnecting after %d handshakes", srv.handshakes.Load())
	}
	err := c.stop()
	assert.ErrorIs(t, err, supervisor.ErrFailed)
	assert.ErrorIs(t, err, websocket.ErrReadLimit)
	assert.Contains(t, err.Error(), "a message over ReadLimit (4096 bytes) broke 3 connections in a row at the same place: giving up")
	assert.Len(t, c.readErrs, 3, "each break yielded once")
	assert.Equal(t, int64(3), srv.handshakes.Load())
}
