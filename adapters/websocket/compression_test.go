package websocket_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
)

// countingListener counts the bytes its connections write.
type countingListener struct {
	net.Listener
	written *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.written}, nil
}

type countingConn struct {
	net.Conn
	written *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n))
	return n, err
}

// Options.CompressionMode offers permessage-deflate: a server that accepts
// it compresses what it sends (far fewer bytes on the wire), and messages
// flow both ways. The zero mode offers nothing, as coder/websocket's
// default does.
func TestCompressionMode(t *testing.T) {
	big := bytes.Repeat([]byte("price 100.25 volume 42; "), 4000) // 96 KB, very repetitive
	for _, tc := range []struct {
		name    string
		mode    websocket.CompressionMode
		deflate bool
	}{
		{"zero: disabled", 0, false},
		{"context takeover", websocket.CompressionContextTakeover, true},
		{"no context takeover", websocket.CompressionNoContextTakeover, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var written atomic.Int64
			offered, answered, echoed := make(chan string, 1), make(chan string, 1), make(chan []byte, 1)
			var (
				mu       sync.Mutex
				stopped  bool // no new handler may start: cleanup waits for the handlers
				handlers sync.WaitGroup
			)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				if stopped {
					mu.Unlock()
					return
				}
				handlers.Add(1)
				mu.Unlock()
				defer handlers.Done()
				offered <- r.Header.Get("Sec-WebSocket-Extensions")
				c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionContextTakeover})
				if err != nil {
					return
				}
				defer c.CloseNow()
				c.SetReadLimit(1 << 20)
				answered <- w.Header().Get("Sec-WebSocket-Extensions")
				if c.Write(r.Context(), websocket.MessageText, big) != nil {
					return
				}
				_, msg, err := c.Read(r.Context())
				if err != nil {
					return
				}
				echoed <- msg
				_, _, _ = c.Read(r.Context()) // until the client leaves
			})}
			go func() { _ = hs.Serve(countingListener{ln, &written}) }()
			t.Cleanup(func() {
				mu.Lock()
				stopped = true
				mu.Unlock()
				_ = hs.Close()
				handlers.Wait()
			})

			o := testOptions()
			o.CompressionMode = tc.mode
			c := run(t, "ws://"+ln.Addr().String()+"/feed", o, false)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var got redialws.Message
			for msg, err := range redialws.Messages(ctx, c.Supervisor) {
				if err != nil {
					t.Errorf("read: %v", err)
				}
				got = msg
				break
			}
			assert.Equal(t, websocket.MessageText, got.Type)
			assert.Equal(t, big, got.Data, "the message arrived whole")
			conn, err := c.Conn(ctx)
			require.NoError(t, err)
			require.NoError(t, conn.Write(ctx, websocket.MessageText, big))
			select {
			case msg := <-echoed:
				assert.Equal(t, big, msg, "the client's message arrived whole")
			case <-ctx.Done():
				t.Fatal("the server got no message")
			}
			// Read only now: the client can read a frame before the
			// server's Write that sent it has returned and been counted;
			// once the server read the echo, its write is long done.
			onWire := written.Load()

			ext, resp := <-offered, <-answered
			t.Logf("offered %q, answered %q; the server wrote %d bytes for a %d-byte message", ext, resp, onWire, len(big))
			if tc.deflate {
				assert.Contains(t, ext, "permessage-deflate", "the client offered it")
				assert.Contains(t, resp, "permessage-deflate", "the server accepted it")
				assert.Less(t, onWire, int64(len(big)/10), "the message was compressed")
			} else {
				assert.Empty(t, ext, "nothing offered")
				assert.Empty(t, resp)
				assert.Greater(t, onWire, int64(len(big)), "sent as it is")
			}
			require.NoError(t, c.Stop())
		})
	}
}
