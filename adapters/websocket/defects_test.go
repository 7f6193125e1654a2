package websocket_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	gws "github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// everywhere returns every text of c a program, a log, a probe or a page
// shows, and the errors given, with their close reasons.
func everywhere(c *client, logs *testkit.Buffer, errs ...error) string {
	var reg health.Registry
	reg.Add("feed", c, health.SourceOptions{Critical: true})
	rec := httptest.NewRecorder()
	healthhttp.ReadyHandler(&reg).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz?verbose=1", nil))
	var b strings.Builder
	fmt.Fprintln(&b, c.Status().Err, c.Err(), logs.String(), rec.Body.String())
	for _, tr := range c.History() {
		fmt.Fprintln(&b, tr.Err)
	}
	for _, err := range errs {
		fmt.Fprintf(&b, "%v %+v\n", err, err)
		if ce, ok := errors.AsType[websocket.CloseError](err); ok {
			fmt.Fprintln(&b, ce.Reason)
		}
	}
	return b.String()
}

// Issue 19, defect 1: net/http sends the url's userinfo as Authorization:
// Basic; a server that echoes that header in a close reason must not get
// it, or the user name, into any text.
func TestEchoedBasicAuthorizationIsMasked(t *testing.T) {
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		if c := s.accept(w, r); c != nil {
			defer s.Forget(c)
			_ = c.Close(websocket.StatusInternalError, "auth '"+r.Header.Get("Authorization")+"' rejected")
		}
	})
	var logs testkit.Buffer
	o := testOptions()
	o.Supervisor.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := run(t, "ws://SECRET123:@"+srv.Addr+"/feed", o, false)
	var errs []error
	for _, err := range redialws.Messages(t.Context(), c.Supervisor) {
		if errs = append(errs, err); len(errs) == 2 {
			break
		}
	}
	require.NoError(t, c.Stop())
	all := everywhere(c, &logs, errs...)
	require.Contains(t, all, "auth 'Basic xxxxx' rejected")
	assert.NotContains(t, all, "U0VDUkVUMTIzOg==")
	assert.NotContains(t, all, "SECRET123")
}

// Issue 19, defect 2: the program leaves politely (Run's ctx first, its
// reader's after Run returned), and the server answers the goodbye with a
// reason that echoes the url's session id. Nothing the loop yields, nor
// the close reason errors.As finds in it, shows the id.
func TestGoodbyeReasonIsMasked(t *testing.T) {
	upgrader := gws.Upgrader{}
	srv := startServer(t, func(_ *server, w http.ResponseWriter, r *http.Request) {
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		sid := r.URL.Query().Get("sid")
		c.SetCloseHandler(func(int, string) error {
			msg := gws.FormatCloseMessage(gws.CloseNormalClosure, "session "+sid+" ended")
			return c.WriteControl(gws.CloseMessage, msg, time.Now().Add(time.Second))
		})
		_ = c.WriteMessage(gws.TextMessage, []byte("hello"))
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	})
	var logs testkit.Buffer
	o := testOptions()
	o.Supervisor.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := run(t, srv.url("/feed?sid=SID-4711-SECRET"), o, false)
	readCtx, cancelRead := context.WithCancel(context.Background())
	defer cancelRead()
	var errs []error
	hello := make(chan struct{})
	loop := make(chan struct{})
	go func() {
		defer close(loop)
		for msg, err := range redialws.Messages(readCtx, c.Supervisor) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if string(msg.Data) == "hello" {
				close(hello)
			}
		}
	}()
	<-hello
	require.NoError(t, c.Stop()) // Run's ctx first: the close handshake ends the read
	select {
	case <-loop:
	case <-time.After(5 * time.Second):
		cancelRead() // then the reader's
		<-loop
	}
	all := everywhere(c, &logs, errs...)
	assert.NotContains(t, all, "SID-4711-SECRET")
}
