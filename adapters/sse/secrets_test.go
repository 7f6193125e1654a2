package sse_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// Issue 19, defect 3: what the program gave is masked however the server
// echoes it: a part of a Cookie (sid=...), a token an earlier BeforeConnect
// call set, and the hook's own error, which names that token.
func TestEveryCredentialOfTheProgramIsMasked(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sid, _ := r.Cookie("sid")
		if n == 1 {
			stream(w)
			send(w, "1", "hello") // then the stream ends: the next attempt's hook fails, the one after it gets in
			return
		}
		w.Header().Set("Content-Type", "text/html; seen=ROT-s3cret-1,"+r.Header.Get("Authorization")+"; sid="+sid.Value)
		w.WriteHeader(http.StatusOK)
	})
	var logs testkit.Buffer
	o := testOptions()
	o.Supervisor.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o.Header = http.Header{"Cookie": {"sid=COOKIE-s3cret; theme=dark"}}
	calls := 0
	o.BeforeConnect = func(_ context.Context, _ *url.URL, h http.Header) error {
		if calls++; calls == 2 {
			return fmt.Errorf("token refresh failed: ROT-s3cret-%d was revoked", calls-1)
		}
		h.Set("Authorization", fmt.Sprintf("Bearer ROT-s3cret-%d", calls))
		return nil
	}
	c := start(t, srv.URL+"/events", o, nil)
	<-c.Done()
	runErr := c.stop()
	require.Error(t, runErr)
	var shown []string
	for _, g := range c.loopEnds(t, 5*time.Second) {
		if g.err != nil {
			shown = append(shown, g.err.Error())
		}
	}
	for _, tr := range c.History() {
		if tr.Err != nil {
			shown = append(shown, tr.Err.Error())
		}
	}
	shown = append(shown, runErr.Error(), fmt.Sprintf("%+v", runErr), logs.String())
	all := strings.Join(shown, "\n")
	assert.Contains(t, all, "token refresh failed: xxxxx was revoked")
	assert.Contains(t, all, `Content-Type "text/html; seen=xxxxx,xxxxx; xxxxx"`)
	assert.NotContains(t, all, "s3cret")
}
