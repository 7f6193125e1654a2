package websocket_test

import (
	"fmt"
	"net/http"
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

// closer is a server that accepts every connection and closes it at once
// with code and reason, recording when it began to close.
type closer struct {
	*server
	mu     sync.Mutex
	closed time.Time
}

func closingServer(t *testing.T, code websocket.StatusCode, reason string) *closer {
	cl := &closer{}
	cl.server = startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		c := s.accept(w, r)
		if c == nil {
			return
		}
		defer s.forget(c)
		cl.mu.Lock()
		cl.closed = time.Now()
		cl.mu.Unlock()
		_ = c.Close(code, reason)
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
		code      websocket.StatusCode
		reason    string
		closeHint time.Duration
		min, max  time.Duration
	}{
		{websocket.StatusTryAgainLater, "", 4 * time.Second, 4 * time.Second, 6 * time.Second},
		{websocket.StatusServiceRestart, "deploying", 4 * time.Second, 4 * time.Second, 6 * time.Second},
		{websocket.StatusTryAgainLater, "overloaded; retry-after=9", 4 * time.Second, 9 * time.Second, 9*time.Second + 500*time.Millisecond},
		{websocket.StatusServiceRestart, "retry-after=-3", 0, redialws.DefaultCloseHint, redialws.DefaultCloseHint * 3 / 2},
	}
	for _, m := range modes {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/%d %q", m.name, tc.code, tc.reason), func(t *testing.T) {
				srv := closingServer(t, tc.code, tc.reason)
				o := testOptions()
				o.CloseHint, o.WriteOnly = tc.closeHint, m.writeOnly
				c := run(t, srv.url("/feed"), o, !m.writeOnly)
				st := testkit.WaitStatus(t, c, 5*time.Second, "backoff", testkit.InState(health.Backoff))
				wait := st.NextAttempt.Sub(srv.lastClose())
				t.Logf("wait after close %d %q: %v", tc.code, tc.reason, wait)
				assert.Equal(t, tc.code, redialws.CloseStatus(st.Err), "%v", st.Err)
				assert.GreaterOrEqual(t, wait, tc.min)
				assert.Less(t, wait, tc.max+200*time.Millisecond)
				require.NoError(t, c.stop())
			})
		}
	}
}

// TestClosePolicyViolationFails: 1008 ends in Failed, without dialing again.
func TestClosePolicyViolationFails(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			srv := closingServer(t, websocket.StatusPolicyViolation, "token revoked")
			o := testOptions()
			o.WriteOnly = m.writeOnly
			c := run(t, srv.url("/feed"), o, !m.writeOnly)
			st := testkit.WaitStatus(t, c, 5*time.Second, "failed", testkit.InState(health.Failed))
			err := c.stop()
			assert.ErrorIs(t, err, supervisor.ErrFailed)
			assert.Equal(t, websocket.StatusPolicyViolation, redialws.CloseStatus(err), "Run's error: %v", err)
			assert.Equal(t, websocket.StatusPolicyViolation, redialws.CloseStatus(st.Err))
			assert.Equal(t, uint64(1), st.Connects)
			assert.Equal(t, int64(1), srv.handshakes.Load(), "never dialed again")
		})
	}
}

// TestCloseOrdinaryReconnects: 1000 and 1001 are ordinary losses: the
// backoff's own wait, no hint, and the client comes back.
func TestCloseOrdinaryReconnects(t *testing.T) {
	for _, code := range []websocket.StatusCode{websocket.StatusNormalClosure, websocket.StatusGoingAway} {
		t.Run(code.String(), func(t *testing.T) {
			srv := closingServer(t, code, "bye")
			c := run(t, srv.url("/feed"), testOptions(), true)
			st := testkit.WaitStatus(t, c, 5*time.Second, "backoff", testkit.InState(health.Backoff))
			assert.Equal(t, code, redialws.CloseStatus(st.Err))
			assert.Less(t, st.NextAttempt.Sub(srv.lastClose()), time.Second)
			testkit.WaitStatus(t, c, 5*time.Second, "a second connection", func(st health.Status) bool { return st.Connects >= 2 })
			require.NoError(t, c.stop())
		})
	}
}
