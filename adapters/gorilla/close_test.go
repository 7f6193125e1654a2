package gorilla_test

import (
	"context"
	"fmt"
	"net/http"
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

// closer is a server that accepts every connection and closes it at once
// with code and reason, recording when it began to close.
type closer struct {
	*server
	mu     sync.Mutex
	closed time.Time
}

func closingServer(t *testing.T, im impl, code int, reason string) *closer {
	cl := &closer{}
	cl.server = startServer(t, im, func(s *server, w http.ResponseWriter, r *http.Request) {
		p := s.accept(w, r, acceptOpts{})
		if p == nil {
			return
		}
		defer s.forget(p)
		cl.mu.Lock()
		cl.closed = time.Now()
		cl.mu.Unlock()
		p.close(code, reason)
	})
	return cl
}

func (cl *closer) lastClose() time.Time {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.closed
}

var modes = []struct {
	name      string
	writeOnly bool
}{{"program reads", false}, {"WriteOnly", true}}

// TestCloseWithHint: 1012 and 1013 make the next wait at least CloseHint
// (at most 1.5 times it), or what the reason says.
func TestCloseWithHint(t *testing.T) {
	cases := []struct {
		code      int
		reason    string
		closeHint time.Duration
		min, max  time.Duration
	}{
		{websocket.CloseTryAgainLater, "", 4 * time.Second, 4 * time.Second, 6 * time.Second},
		{websocket.CloseServiceRestart, "deploying", 4 * time.Second, 4 * time.Second, 6 * time.Second},
		{websocket.CloseTryAgainLater, "overloaded; retry-after=9", 4 * time.Second, 9 * time.Second, 9*time.Second + 500*time.Millisecond},
		{websocket.CloseServiceRestart, "retry-after=-3", 0, gorilla.DefaultCloseHint, gorilla.DefaultCloseHint * 3 / 2},
	}
	eachImpl(t, func(t *testing.T, im impl) {
		for _, m := range modes {
			for _, tc := range cases {
				t.Run(fmt.Sprintf("%s/%d %q", m.name, tc.code, tc.reason), func(t *testing.T) {
					srv := closingServer(t, im, tc.code, tc.reason)
					o := testOptions()
					o.CloseHint, o.WriteOnly = tc.closeHint, m.writeOnly
					c := run(t, srv.url("/feed"), o, !m.writeOnly)
					st := testkit.WaitStatus(t, c, 5*time.Second, "backoff", testkit.InState(health.Backoff))
					wait := st.NextAttempt.Sub(srv.lastClose())
					t.Logf("wait after close %d %q: %v", tc.code, tc.reason, wait)
					assert.Equal(t, tc.code, gorilla.CloseStatus(st.Err), "%v", st.Err)
					assert.GreaterOrEqual(t, wait, tc.min)
					assert.Less(t, wait, tc.max+200*time.Millisecond)
					require.NoError(t, c.stop())
				})
			}
		}
	})
}

// TestClosePolicyViolationFails: 1008 ends in Failed, without dialing again.
func TestClosePolicyViolationFails(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		for _, m := range modes {
			t.Run(m.name, func(t *testing.T) {
				srv := closingServer(t, im, websocket.ClosePolicyViolation, "token revoked")
				o := testOptions()
				o.WriteOnly = m.writeOnly
				c := run(t, srv.url("/feed"), o, !m.writeOnly)
				st := testkit.WaitStatus(t, c, 5*time.Second, "failed", testkit.InState(health.Failed))
				err := c.stop()
				assert.ErrorIs(t, err, supervisor.ErrFailed)
				assert.Equal(t, websocket.ClosePolicyViolation, gorilla.CloseStatus(err), "Run's error: %v", err)
				assert.Equal(t, websocket.ClosePolicyViolation, gorilla.CloseStatus(st.Err))
				assert.Equal(t, uint64(1), st.Connects)
				assert.Equal(t, int64(1), srv.handshakes.Load(), "never dialed again")
			})
		}
	})
}

// TestCloseOrdinaryReconnects: 1000 and 1001 are ordinary losses: the
// backoff's own wait, no hint, and the client comes back.
func TestCloseOrdinaryReconnects(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		for _, code := range []int{websocket.CloseNormalClosure, websocket.CloseGoingAway} {
			t.Run(fmt.Sprint(code), func(t *testing.T) {
				srv := closingServer(t, im, code, "bye")
				c := run(t, srv.url("/feed"), testOptions(), true)
				st := testkit.WaitStatus(t, c, 5*time.Second, "backoff", testkit.InState(health.Backoff))
				assert.Equal(t, code, gorilla.CloseStatus(st.Err))
				assert.Less(t, st.NextAttempt.Sub(srv.lastClose()), time.Second)
				testkit.WaitStatus(t, c, 5*time.Second, "a second connection", func(st health.Status) bool { return st.Connects >= 2 })
				require.NoError(t, c.stop())
			})
		}
	})
}

// A program that reads with its own loop and does not call Invalidate:
// the heartbeat's next ping finds the close, and Classify still sees its
// code (the adapter's close handler recorded the frame).
func TestCloseSeenByOwnReadLoopReachesClassify(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		srv := closingServer(t, im, websocket.ClosePolicyViolation, "token revoked")
		o := testOptions()
		o.PingInterval = 50 * time.Millisecond
		o.Supervisor.OnConnect = func(_ context.Context, conn *websocket.Conn) error {
			go func() {
				for {
					if _, _, err := conn.ReadMessage(); err != nil {
						return // and says nothing
					}
				}
			}()
			return nil
		}
		c := run(t, srv.url("/feed"), o, false)
		st := testkit.WaitStatus(t, c, 5*time.Second, "failed", testkit.InState(health.Failed))
		assert.Equal(t, websocket.ClosePolicyViolation, gorilla.CloseStatus(st.Err), "%v", st.Err)
		assert.Contains(t, st.Err.Error(), "the server closed the connection")
		require.Error(t, c.stop())
	})
}
