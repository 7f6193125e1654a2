package httpcore_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// Three replicas; the one in use is killed: the next attempt goes to
// another within FailoverSpread, not after the backoff, and Status says
// which; each replica's secrets are masked.
func TestKilledReplicaFailsOverToAnother(t *testing.T) {
	var servers []*server
	var urls []string
	for range 3 {
		s := serve(t, func(_ int64, w http.ResponseWriter, r *http.Request) { stream(w, r, "hello") })
		servers = append(servers, s)
		urls = append(urls, s.URL+"/x?token=SECRET-"+s.Listener.Addr().String())
	}
	o := fast()
	o.FailoverSpread = 50 * time.Millisecond
	s := mustLines(t, urls[0], httpcore.Config{Replicas: urls[1:]}, o)
	stop := testkit.Run(t, s)
	go func() {
		for range linesReader.Messages(t.Context(), s) {
		}
	}()
	st := testkit.WaitStatus(t, s, 5*time.Second, "connected", testkit.InState(health.Connected))
	require.Equal(t, servers[0].URL+"/x?token=xxxxx", st.Endpoint, "the first attempt goes to url")
	assert.Equal(t, st.Endpoint, s.Name())

	ch, unsub := s.Subscribe()
	defer unsub()
	servers[0].CloseClientConnections()
	servers[0].Close() // killed: connections dropped, port closed
	lost := testkit.Until(t, ch, 5*time.Second, "the loss", testkit.InState(health.Backoff))
	assert.Less(t, lost.NextAttempt.Sub(lost.LastFailure), 50*time.Millisecond, "the next replica within FailoverSpread")
	back := testkit.Until(t, ch, 5*time.Second, "connected again", testkit.InState(health.Connected))
	assert.True(t, slices.ContainsFunc(servers[1:], func(s *server) bool { return back.Endpoint == s.URL+"/x?token=xxxxx" }), back.Endpoint)
	assert.Zero(t, back.Failures, "the next replica was tried first, and took it")
	require.NoError(t, stop())
}
