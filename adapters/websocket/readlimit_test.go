package websocket_test

import (
	"net/http"
	"testing"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/testkit"
)

// The ReadLimit checks against coder/websocket's server: a huge frame, a
// stop while it streams, a poison message.
func TestReadLimit(t *testing.T) {
	testkit.AssertReadLimits(t, websocket.ErrMessageTooBig, func(t *testing.T, huge func(http.ResponseWriter, *http.Request) bool) *testkit.HTTPServer[*websocket.Conn] {
		return startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
			if huge(w, r) {
				return
			}
			if c := s.accept(w, r); c != nil {
				s.feed(r.Context(), c)
			}
		}).HTTPServer
	}, func(t *testing.T, url string, l testkit.Limits, read bool) *client {
		o := testOptions()
		o.ReadLimit, o.CloseTimeout = l.ReadLimit, l.CloseTimeout
		return run(t, url, o, read)
	})
}
