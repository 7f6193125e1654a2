package websocket_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
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
			require.NoError(t, c.Stop())
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

// TestBeforeConnectRetriesAPolicyClose: a server that revokes a
// session's token closes with 1008 (policy violation); with BeforeConnect
// the next attempt carries a new token, so the close is retried with the
// backoff rather than given up on, and the error keeps its close status.
func TestBeforeConnectRetriesAPolicyClose(t *testing.T) {
	var conns atomic.Int32
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		c := s.accept(w, r)
		if c == nil {
			return
		}
		if conns.Add(1) == 1 {
			defer s.Forget(c)
			_ = c.Close(websocket.StatusPolicyViolation, "token revoked")
			return
		}
		s.feed(r.Context(), c)
	})
	for _, hook := range []bool{true, false} {
		conns.Store(0)
		o := testOptions()
		if hook {
			o.BeforeConnect = func(context.Context, *url.URL, http.Header) error { return nil }
		}
		c := run(t, srv.url("/feed"), o, false)
		var errs []error
		for _, err := range redialws.Messages(t.Context(), c.Supervisor) {
			errs = append(errs, err)
			break
		}
		require.Len(t, errs, 1)
		assert.Equal(t, websocket.StatusPolicyViolation, redialws.CloseStatus(errs[0]))
		if !hook {
			<-c.Ended
			err := c.Stop()
			assert.ErrorIs(t, err, supervisor.ErrFailed, "without the hook a 1008 is final")
			assert.Equal(t, websocket.StatusPolicyViolation, redialws.CloseStatus(err))
			continue
		}
		testkit.WaitStatus(t, c, 5*time.Second, "connected again", connected(2))
		lost := slices.IndexFunc(c.History(), func(tr health.Transition) bool {
			return tr.To == health.Backoff && redialws.CloseStatus(tr.Err) == websocket.StatusPolicyViolation
		})
		assert.GreaterOrEqual(t, lost, 0, "the loss, retried, kept its close status: %v", c.History())
		require.NoError(t, c.Stop())
	}
}
