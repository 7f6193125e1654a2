package gorilla_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
)

// gorilla/websocket allows one writer at a time, and WriteControl beside
// it. The program owns the writer; the adapter writes only with
// WriteControl (pings, the close frame). A program writing without pause
// while the heartbeat pings every millisecond and Messages reads: every
// message arrives whole and in order, pings get through, the connection
// stays, and the race detector sees nothing; the stop's close frame, in
// the middle of the writes, ends them with an error, not a corrupt frame.
func TestPingsAndTheProgramsWritesShareTheConnection(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		const n = 3000
		var pings atomic.Int64
		tenPings := make(chan struct{})
		received := make(chan []string, 1)
		srv := startServer(t, im, func(s *server, w http.ResponseWriter, r *http.Request) {
			p := s.accept(w, r, acceptOpts{onPing: func() {
				if pings.Add(1) == 10 {
					close(tenPings)
				}
			}})
			if p == nil {
				return
			}
			defer s.Forget(p)
			var got []string
			for {
				_, msg, err := p.read(r.Context())
				if err != nil {
					received <- got
					return
				}
				got = append(got, string(msg))
			}
		})
		o := testOptions()
		o.PingInterval, o.PingTimeout = time.Millisecond, time.Second
		c := run(t, srv.url("/feed"), o, true)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := c.Conn(ctx)
		require.NoError(t, err)

		wrote := make(chan error, 1)
		go func() { // the program's one writer
			for i := range n {
				if err := conn.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, "price %06d", i)); err != nil {
					wrote <- err
					return
				}
				if i == n/2 {
					select { // pings in between
					case <-tenPings:
					case <-ctx.Done():
					}
				}
			}
			wrote <- nil
			for { // on until the stop's close frame
				if err := conn.WriteMessage(websocket.BinaryMessage, []byte("more")); err != nil {
					wrote <- err
					return
				}
			}
		}()
		require.NoError(t, <-wrote)
		st := c.Status()
		assert.Equal(t, health.Connected, st.State, "%v", st.Err)
		assert.Equal(t, uint64(1), st.Connects)
		require.NoError(t, c.Stop())
		assert.Error(t, <-wrote, "the writes end at the close")

		got := <-received
		require.GreaterOrEqual(t, len(got), n)
		for i := range n {
			if !assert.Equal(t, fmt.Sprintf("price %06d", i), got[i]) {
				break
			}
		}
		for _, m := range got[n:] {
			if !assert.Equal(t, "more", m) {
				break
			}
		}
		t.Logf("%d messages and %d pings on one connection", len(got), pings.Load())
		assert.GreaterOrEqual(t, pings.Load(), int64(10))
	})
}
