package gorilla_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testkit"
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
