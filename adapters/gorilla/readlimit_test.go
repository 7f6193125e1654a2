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
	"github.com/redial-go/redial/internal/testing/testkit"
)

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

// TestReadLimitCloseIsHeard: after a message of ReadLimit+1 bytes (1 MiB
// + 1), the server hears 1009 on every connection of 15. Gorilla writes
// the close frame; closing the socket at once with the rest of the message
// unread made the kernel reset it, and the server heard 1006 instead
// (7 of 15 in issue 27); coder's adapter gave 1009 every time.
func TestReadLimitCloseIsHeard(t *testing.T) {
	const conns = 15
	eachImpl(t, func(t *testing.T, im impl) {
		got := make(chan int, conns+1)
		srv := startServer(t, im, func(s *server, w http.ResponseWriter, r *http.Request) {
			p := s.accept(w, r, acceptOpts{})
			if p == nil {
				return
			}
			defer s.Forget(p)
			for range s.Handshakes.Load() { // a new place each time: three breaks at one place end the client
				if p.write(r.Context(), websocket.TextMessage, []byte("small")) != nil {
					return
				}
			}
			if p.write(r.Context(), websocket.BinaryMessage, bytes.Repeat([]byte("x"), gorilla.DefaultReadLimit+1)) != nil {
				got <- -2 // the write failed: the client reset the socket first
				return
			}
			_, _, err := p.read(r.Context())
			got <- s.im.closeCode(err)
		})
		c := run(t, srv.url("/feed"), testOptions(), true)
		heard := map[int]int{}
		for range conns {
			select {
			case code := <-got:
				heard[code]++
			case <-time.After(10 * time.Second):
				t.Fatalf("%d connections in 10s; heard %v", srv.Handshakes.Load(), heard)
			}
		}
		_ = c.Stop()
		t.Logf("codes the server heard over %d connections: %v", conns, heard)
		assert.Equal(t, map[int]int{websocket.CloseMessageTooBig: conns}, heard)
	})
}
