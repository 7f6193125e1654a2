package gorilla_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// closingServer accepts every connection and closes it at once with code
// and reason.
func closingServer(t *testing.T, im impl, code int, reason string) *server {
	return startServer(t, im, func(s *server, w http.ResponseWriter, r *http.Request) {
		if p := s.accept(w, r, acceptOpts{}); p != nil {
			defer s.Forget(p)
			p.close(code, reason)
		}
	})
}

var modes = []struct {
	name      string
	writeOnly bool
}{{"program reads", false}, {"WriteOnly", true}}

// A program that reads with its own loop and does not call Invalidate:
// the heartbeat's next ping finds the close, and Classify still sees its
// code (the adapter's close handler recorded the frame).
func TestCloseSeenByOwnReadLoopReachesClassify(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		srv := closingServer(t, im, websocket.ClosePolicyViolation, "token revoked")
		o := testOptions()
		o.PingInterval = 50 * time.Millisecond
		o.OnConnect = func(_ context.Context, conn *websocket.Conn) error {
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
		require.Error(t, c.Stop())
	})
}
