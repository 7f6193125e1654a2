package websocket_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testkit"
)

// A server that accepts and drops every connection at once: the client
// keeps backing off, so the handshakes the server counts in a fixed
// window stay within what the backoff allows.
func TestFlappingServerNeverResetsTheBackoff(t *testing.T) {
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		if c := s.accept(w, r); c != nil {
			s.Forget(c) // dropped at once, without a close frame
		}
	})
	const base, maxWait = 20 * time.Millisecond, time.Second
	o := testOptions()
	o.Supervisor.Backoff = testkit.Fast(base, maxWait)
	c := run(t, srv.url("/feed"), o, true)
	testkit.AssertFlapping(t, c, base, maxWait, 1500*time.Millisecond, 3, srv.Handshakes.Load)
	require.NoError(t, c.Stop())
}
