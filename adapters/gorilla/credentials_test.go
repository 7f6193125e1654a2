package gorilla_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// tokenServer accepts a handshake only when its query token is one of
// want; it answers 401 otherwise, with a body that repeats the token and
// the Authorization header. It closes the first connection it accepts
// with 1011 and a reason that repeats them too, and feeds the next ones.
// It records every token it saw.
type tokenServer struct {
	*server
	mu       sync.Mutex
	want     []string
	seen     []string
	accepted int
}

func newTokenServer(t *testing.T, im impl, want ...string) *tokenServer {
	ts := &tokenServer{want: want}
	ts.server = startServer(t, im, func(s *server, w http.ResponseWriter, r *http.Request) {
		tok, auth := r.URL.Query().Get("token"), r.Header.Get("Authorization")
		ts.mu.Lock()
		ts.seen = append(ts.seen, tok+" "+auth)
		ok := slices.Contains(ts.want, tok)
		if ok {
			ts.accepted++
		}
		first := ts.accepted == 1
		ts.mu.Unlock()
		if !ok {
			http.Error(w, "token "+tok+" expired; auth "+auth, http.StatusUnauthorized)
			return
		}
		p := s.accept(w, r, acceptOpts{})
		if p == nil {
			return
		}
		if first {
			defer s.Forget(p)
			p.close(websocket.CloseInternalServerErr, "session "+tok+" ("+auth+") ended")
			return
		}
		s.feed(r.Context(), p)
	})
	return ts
}

func (ts *tokenServer) tokens() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.seen...)
}

// With BeforeConnect, a 401 is retried with the backoff: each attempt
// carries a new token (in the query and in Authorization), the third is
// accepted, and the server closes that connection with a reason that
// repeats its credentials; the fourth stays. No token — the stale ones,
// the one in use — reaches a Status, the log or an error, although the
// refusals and the close reason echo them.
func TestBeforeConnectRotatesCredentials(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		ts := newTokenServer(t, im, "TOK-3-s3cret", "TOK-4-s3cret")
		var calls atomic.Int64
		var logs testkit.Buffer
		o := testOptions()
		o.Supervisor.Name = ""
		o.Supervisor.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		o.Header = http.Header{"X-Client": {"feed-7"}}
		o.BeforeConnect = func(_ context.Context, u *url.URL, h http.Header) error {
			n := calls.Add(1)
			assert.Equal(t, "", u.Query().Get("token"), "a copy of the url: the last attempt's change is gone")
			assert.Equal(t, "feed-7", h.Get("X-Client"), "a copy of Options.Header")
			assert.Empty(t, h.Get("Authorization"))
			q := u.Query()
			q.Set("token", fmt.Sprintf("TOK-%d-s3cret", n))
			u.RawQuery = q.Encode()
			h.Set("Authorization", fmt.Sprintf("Bearer HDR-%d-s3cret", n))
			return nil
		}
		var errs []string
		c := run(t, ts.url("/feed?room=1"), o, true)
		ch, unsub := c.Subscribe()
		st := testkit.Until(t, ch, 10*time.Second, "the fourth attempt's connection", func(st health.Status) bool {
			if st.Err != nil {
				errs = append(errs, st.Err.Error(), fmt.Sprintf("%+v", st.Err))
			}
			return st.State == health.Connected && st.Connects == 2
		})
		unsub()
		assert.Equal(t, int64(4), calls.Load(), "BeforeConnect before every attempt")
		assert.Equal(t, []string{"TOK-1-s3cret Bearer HDR-1-s3cret", "TOK-2-s3cret Bearer HDR-2-s3cret", "TOK-3-s3cret Bearer HDR-3-s3cret", "TOK-4-s3cret Bearer HDR-4-s3cret"}, ts.tokens())
		require.NotEmpty(t, errs, "the refusals were seen")
		assert.Contains(t, errs[0], "401 Unauthorized")
		assert.Contains(t, strings.Join(errs, "\n"), "session xxxxx (xxxxx) ended", "the close reason is shown, masked")
		require.NoError(t, c.Stop())
		select {
		case err := <-c.ReadErrs:
			errs = append(errs, err.Error(), fmt.Sprintf("%+v", err))
		default:
			t.Error("the Messages loop yielded no error for the closed connection")
		}
		shown := strings.Join(append(errs, logs.String(), st.Name), "\n")
		assert.NotContains(t, shown, "s3cret", "a credential is shown:\n%s", shown)
		assert.NotContains(t, shown, "expired", "the response body is shown")
	})
}
