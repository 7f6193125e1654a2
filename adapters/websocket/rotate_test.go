package websocket_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

// tokenServer accepts a handshake only with the current token, in the
// query or in Authorization, and answers 401 otherwise.
func tokenServer(t *testing.T, current *atomic.Value) *server {
	return startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		want := current.Load().(string)
		if r.URL.Query().Get("token") != want && r.Header.Get("Authorization") != "Bearer "+want {
			http.Error(w, "token expired", http.StatusUnauthorized)
			return
		}
		if c := s.accept(w, r); c != nil {
			s.feed(r.Context(), c)
		}
	})
}

// TestBeforeConnectRotatesCredentials: the token the url was built with
// has expired; BeforeConnect learns the new one after a while. The 401s
// in between are retried with the backoff, not given up on, and neither
// token shows in Status or the log.
func TestBeforeConnectRotatesCredentials(t *testing.T) {
	for _, where := range []string{"query", "header"} {
		t.Run(where, func(t *testing.T) {
			var current atomic.Value
			current.Store("TOKEN-NEW-2")
			srv := tokenServer(t, &current)
			var calls atomic.Int32
			var logs testkit.Buffer
			o := testOptions()
			o.Supervisor.Name = ""
			o.Supervisor.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			o.BeforeConnect = func(_ context.Context, u *url.URL, h http.Header) error {
				token := "TOKEN-OLD-1"
				if calls.Add(1) > 2 { // the new token arrives at the third attempt
					token = current.Load().(string)
				}
				if where == "query" {
					q := u.Query()
					q.Set("token", token)
					u.RawQuery = q.Encode()
				} else {
					h.Set("Authorization", "Bearer "+token)
				}
				return nil
			}
			c := run(t, srv.url("/feed?token=TOKEN-OLD-1"), o, true)
			rec := testkit.Record(c)
			st := testkit.WaitStatus(t, c, 5*time.Second, "connected", testkit.InState(health.Connected))
			states := rec.Stop()
			require.NoError(t, c.stop())
			assert.NotContains(t, states, health.Failed, "a 401 with BeforeConnect set is retried: %v", states)
			assert.GreaterOrEqual(t, calls.Load(), int32(3), "called before every attempt")
			assert.GreaterOrEqual(t, st.Failures, uint64(2), "the two attempts with the old token failed")
			for _, token := range []string{"TOKEN-OLD-1", "TOKEN-NEW-2"} {
				assert.NotContains(t, logs.String(), token)
				assert.NotContains(t, st.Name, token)
			}
		})
	}
}

// TestWithoutBeforeConnectA401IsFinal: the same server without the hook
// gives up at the first 401.
func TestWithoutBeforeConnectA401IsFinal(t *testing.T) {
	var current atomic.Value
	current.Store("TOKEN-NEW-2")
	srv := tokenServer(t, &current)
	c := run(t, srv.url("/feed?token=TOKEN-OLD-1"), testOptions(), true)
	st := testkit.WaitStatus(t, c, 5*time.Second, "failed", testkit.InState(health.Failed))
	assert.Equal(t, uint64(1), st.Failures)
}
