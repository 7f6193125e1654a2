package gorilla_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// A server that answers 101 without a valid upgrade (no
// Sec-WebSocket-Accept) is an ordinary failure, not a HandshakeError.
func TestHandshakeBadUpgradeIsRetried(t *testing.T) {
	srv := httpServer(t, func(_ *server, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Connection", "Upgrade")
		w.WriteHeader(http.StatusSwitchingProtocols)
	})
	c := run(t, srv.url("/feed"), testOptions(), false)
	st := testkit.WaitStatus(t, c, 5*time.Second, "backoff", testkit.InState(health.Backoff))
	var he *gorilla.HandshakeError
	assert.False(t, errors.As(st.Err, &he), "%v", st.Err)
	assert.Contains(t, st.Err.Error(), "101 without a valid WebSocket upgrade")
	testkit.WaitStatus(t, c, 5*time.Second, "a second attempt", func(st health.Status) bool { return st.ConsecutiveFailures >= 2 })
	require.NoError(t, c.Stop())
}
