package testkit

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"net"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// HugeFrame is a WebSocket server's handler, for any client library: it
// completes the handshake by hand, then streams one binary frame that
// announces 1 GiB, from a reused 64 KiB buffer, until the client hangs up.
// It records the most bytes sent on one connection and the longest it
// streamed; the test's cleanup closes the sockets it still streams on.
type HugeFrame struct {
	mu      sync.Mutex
	raws    []net.Conn
	bytes   int64
	longest time.Duration
}

// NewHugeFrame returns a HugeFrame whose sockets close when t ends.
func NewHugeFrame(t testing.TB) *HugeFrame {
	h := &HugeFrame{}
	t.Cleanup(func() { // before the server's own cleanup: unblock any writer
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, c := range h.raws {
			_ = c.Close()
		}
	})
	return h
}

// Serve answers the handshake of r and streams the frame.
func (h *HugeFrame) Serve(w http.ResponseWriter, r *http.Request) {
	raw, rw, err := upgradeByHand(w, r)
	if err != nil {
		return
	}
	h.mu.Lock()
	h.raws = append(h.raws, raw)
	h.mu.Unlock()
	defer raw.Close()
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
	h.mu.Lock()
	defer h.mu.Unlock()
	h.bytes, h.longest = max(h.bytes, sent), max(h.longest, time.Since(began))
}

// Most returns the most bytes sent on one connection and the longest a
// connection was streamed to.
func (h *HugeFrame) Most() (int64, time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bytes, h.longest
}

// AssertBounded runs refused, which has a client meet the frame and stop,
// and checks that the client's memory stayed bounded and that it hung up
// at once, near its read limit (1 MiB by default).
func (h *HugeFrame) AssertBounded(t testing.TB, refused func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	refused()
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	sent, longest := h.Most()
	t.Logf("allocated %d MiB in all; most sent on one connection before the client hung up: %d MiB, after %v", allocated>>20, sent>>20, longest)
	assert.Less(t, allocated, uint64(64<<20), "memory stays bounded")
	assert.Less(t, sent, int64(64<<20), "the client stopped reading near the limit")
	// A close handshake that reads on would stream for its 5s timeout
	// (coder/websocket's); hanging up at once took 1.4s beside two
	// burners and six test binaries, under -race: 3s tells them apart.
	assert.Less(t, longest, 3*time.Second, "the client hung up at once, without a close handshake that reads on")
}

// upgradeByHand hijacks r's connection and answers its WebSocket
// handshake with 101, flushed.
func upgradeByHand(w http.ResponseWriter, r *http.Request) (net.Conn, *bufio.ReadWriter, error) {
	sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	raw, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, nil, err
	}
	_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n")
	if err := rw.Flush(); err != nil {
		_ = raw.Close()
		return nil, nil, err
	}
	return raw, rw, nil
}
