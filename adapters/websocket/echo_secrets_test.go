package websocket_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// TestSecretTheServerSendsBackIsMasked: the url carries a token under a
// name no list knows (jwt), a header carries another, and the server
// closes with a reason that repeats both. Neither reaches the error
// Messages yields, Status.Err, the log, the readiness body, nor — for a
// 1008 that ends in Failed — Run's and Conn's errors, in text or by
// reflection; the close status is still there for CloseStatus.
func TestSecretTheServerSendsBackIsMasked(t *testing.T) {
	const token, header = "SECRET123", "HDR-SECRET-9"
	for _, tc := range []struct {
		code   websocket.StatusCode
		reason string
		final  health.State
	}{
		{websocket.StatusInternalError, "session " + token + " expired (" + header + ")", health.Backoff},
		{websocket.StatusPolicyViolation, "token " + token + " revoked (" + header + ")", health.Failed},
	} {
		t.Run(tc.code.String(), func(t *testing.T) {
			srv := closingServer(t, tc.code, tc.reason)
			var logs testkit.Buffer
			o := testOptions()
			o.Supervisor.Name = ""
			o.Header = http.Header{"X-Api-Key": {header}}
			o.Supervisor.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			s, err := redialws.New(srv.url("/feed?jwt="+token), o)
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go func() { _ = s.Run(ctx) }()

			var readErr error
			for _, err := range redialws.Messages(ctx, s) {
				if err != nil {
					readErr = err
					break
				}
			}
			require.Error(t, readErr)
			assert.Equal(t, tc.code, redialws.CloseStatus(readErr), "the close status survives the masking")
			st := testkit.WaitStatus(t, s, 5*time.Second, "the loss", func(st health.Status) bool {
				return st.State == tc.final && st.Err != nil
			})
			var reg health.Registry
			reg.Add("feed", s, true)
			rec := httptest.NewRecorder()
			healthhttp.ReadyHandler(&reg).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz?verbose=1", nil))
			shown := map[string]string{
				"Messages error":         readErr.Error(),
				"Messages error reflect": strings.Join(reachableStrings(readErr), "\n"),
				"Status.Err":             st.Err.Error(),
				"Status.Err reflect":     strings.Join(reachableStrings(st.Err), "\n"),
				"Status.Name":            st.Name,
				"log":                    logs.String(),
				"readiness ?verbose=1":   rec.Body.String(),
			}
			if tc.final == health.Failed {
				<-s.Done()
				_, connErr := s.Conn(t.Context())
				shown["Run error"] = s.Err().Error()
				shown["Run error reflect"] = strings.Join(reachableStrings(s.Err()), "\n")
				shown["Conn error"] = connErr.Error()
				assert.ErrorIs(t, s.Err(), supervisor.ErrFailed)
			} else {
				logs.WaitFor(t, "connection lost", 5*time.Second)
			}
			cancel()
			<-s.Done()
			shown["log"] = logs.String()
			for where, text := range shown {
				assert.NotContains(t, text, token, "%s shows the token:\n%s", where, text)
				assert.NotContains(t, text, header, "%s shows the header:\n%s", where, text)
			}
			assert.Contains(t, st.Err.Error(), "xxxxx", "the reason is shown, masked")
			t.Log(fmt.Sprint(st.Err))
		})
	}
}
