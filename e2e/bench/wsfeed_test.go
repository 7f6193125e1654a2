package bench

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// msgSize is the payload of every message the feeds send.
const msgSize = 256

// wsFeed is a WebSocket server that sends 256-byte binary messages as fast
// as the client reads them: frames encoded once and written in 64 KiB
// chunks, so that the server's own cost per message is a small share of
// the client's and the benchmark measures the client's read path. It
// answers pings (the adapters' heartbeat) and nothing else.
type wsFeed struct {
	srv   *httptest.Server
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// wsChunk is 252 frames (a 4-byte header each: FIN|binary, 126, length).
var wsChunk = func() []byte {
	frame := make([]byte, 4+msgSize)
	frame[0], frame[1] = 0x82, 126
	binary.BigEndian.PutUint16(frame[2:], msgSize)
	for i := range msgSize {
		frame[4+i] = byte('a' + i%26)
	}
	var b []byte
	for range 65536 / len(frame) {
		b = append(b, frame...)
	}
	return b
}()

func newWSFeed(tb testing.TB) *wsFeed {
	f := &wsFeed{conns: map[net.Conn]struct{}{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.handshake))
	tb.Cleanup(f.close)
	return f
}

// url is the feed's ws:// URL.
func (f *wsFeed) url() string { return "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/feed" }

func (f *wsFeed) close() {
	f.mu.Lock()
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.srv.Close()
	f.wg.Wait()
}

// handshake answers the upgrade (RFC 6455 section 4.2.2) and starts the
// connection's writer and reader.
func (f *wsFeed) handshake(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Sec-WebSocket-Key")
	if key == "" || !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		http.Error(w, "not a websocket handshake", http.StatusBadRequest)
		return
	}
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	_, err = io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "+
		base64.StdEncoding.EncodeToString(sum[:])+"\r\n\r\n")
	if err != nil {
		conn.Close()
		return
	}
	f.mu.Lock()
	f.conns[conn] = struct{}{}
	f.mu.Unlock()
	var wmu sync.Mutex
	f.wg.Go(func() { f.write(conn, &wmu) })
	f.wg.Go(func() { f.read(conn, brw.Reader, &wmu) })
}

// write sends chunks until the connection fails.
func (f *wsFeed) write(conn net.Conn, wmu *sync.Mutex) {
	for {
		wmu.Lock()
		_, err := conn.Write(wsChunk)
		wmu.Unlock()
		if err != nil {
			f.drop(conn)
			return
		}
	}
}

// read answers pings with pongs and ends at a close frame or an error.
func (f *wsFeed) read(conn net.Conn, br *bufio.Reader, wmu *sync.Mutex) {
	defer f.drop(conn)
	for {
		var h [2]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			return
		}
		n := int(h[1] & 0x7f)
		switch n {
		case 126:
			var ext [2]byte
			if _, err := io.ReadFull(br, ext[:]); err != nil {
				return
			}
			n = int(binary.BigEndian.Uint16(ext[:]))
		case 127:
			return // no client here sends 64 KiB
		}
		var mask [4]byte
		if h[1]&0x80 != 0 {
			if _, err := io.ReadFull(br, mask[:]); err != nil {
				return
			}
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(br, payload); err != nil {
			return
		}
		for i := range payload {
			payload[i] ^= mask[i%4]
		}
		switch h[0] & 0x0f {
		case 0x9: // ping: pong with the same payload
			wmu.Lock()
			_, err := conn.Write(append([]byte{0x8a, byte(n)}, payload...))
			wmu.Unlock()
			if err != nil {
				return
			}
		case 0x8: // close
			return
		}
	}
}

func (f *wsFeed) drop(conn net.Conn) {
	f.mu.Lock()
	delete(f.conns, conn)
	f.mu.Unlock()
	conn.Close()
}
