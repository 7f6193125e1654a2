package gorilla_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
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

// Options.EnableCompression offers permessage-deflate (no context
// takeover, gorilla's only mode): a server that accepts it compresses what
// it sends (far fewer bytes on the wire), and messages flow both ways. The
// zero value offers nothing, as gorilla's Dialer does by default.
func TestEnableCompression(t *testing.T) {
	big := bytes.Repeat([]byte("price 100.25 volume 42; "), 4000) // 96 KB, very repetitive
	eachImpl(t, func(t *testing.T, im impl) {
		for _, enable := range []bool{false, true} {
			t.Run(map[bool]string{false: "off", true: "on"}[enable], func(t *testing.T) {
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
					p, err := im.accept(w, r, acceptOpts{compress: true})
					if err != nil {
						return
					}
					defer p.drop()
					answered <- w.Header().Get("Sec-WebSocket-Extensions")
					if p.write(r.Context(), websocket.TextMessage, big) != nil {
						return
					}
					_, msg, err := p.read(r.Context())
					if err != nil {
						return
					}
					echoed <- msg
					_, _, _ = p.read(r.Context()) // until the client leaves
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
				o.EnableCompression = enable
				c := run(t, "ws://"+ln.Addr().String()+"/feed", o, false)
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				var got gorilla.Message
				for msg, err := range gorilla.Messages(ctx, c.Supervisor) {
					if err != nil {
						t.Errorf("read: %v", err)
					}
					got = msg
					break
				}
				assert.Equal(t, websocket.TextMessage, got.Type)
				assert.Equal(t, big, got.Data, "the message arrived whole")
				conn, err := c.Conn(ctx)
				require.NoError(t, err)
				require.NoError(t, conn.WriteMessage(websocket.TextMessage, big))
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

				// (gorilla's Upgrader writes its answer past w.Header: only
				// coder's shows there.)
				ext, resp := <-offered, <-answered
				t.Logf("offered %q, answered %q; the server wrote %d bytes for a %d-byte message", ext, resp, onWire, len(big))
				if enable {
					assert.Contains(t, ext, "permessage-deflate", "the client offered it")
					assert.Less(t, onWire, int64(len(big)/10), "the server accepted it: the message was compressed")
				} else {
					assert.Empty(t, ext, "nothing offered")
					assert.Greater(t, onWire, int64(len(big)), "sent as it is")
				}
				require.NoError(t, c.Stop())
			})
		}
	})
}
