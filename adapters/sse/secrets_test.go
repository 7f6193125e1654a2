package sse_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

// secrets are the credentials of the tests below; none may be shown
// anywhere: SECRET123 in the url's query, HDR-s3cret in a header the
// program set, ROT-s3cret-N in what BeforeConnect sets.
var secrets = []string{"SECRET123", "HDR-s3cret", "PW-s3cret", "ROT-s3cret"}

// echo is what a careless server sends back: the request's url and
// credentials.
func echo(r *http.Request) string {
	return "no route for " + r.URL.String() + " key " + r.Header.Get("X-Api-Key") + " auth " + r.Header.Get("Authorization")
}

func TestCredentialsNeverShown(t *testing.T) {
	refused := func(t *testing.T) string { // nothing listens there
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		return addr
	}
	answering := func(h func(w http.ResponseWriter, r *http.Request)) func(t *testing.T) string {
		return func(t *testing.T) string {
			return strings.TrimPrefix(serve(t, func(w http.ResponseWriter, r *http.Request, _ int) { h(w, r) }).URL, "http://")
		}
	}
	for name, addr := range map[string]func(*testing.T) string{
		"connection refused": refused,
		"503 echoing, Retry-After": answering(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, echo(r), http.StatusServiceUnavailable)
		}),
		"401 echoing": answering(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, echo(r), http.StatusUnauthorized)
		}),
		"200 text/html echoing in Content-Type": answering(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; x="+r.URL.Query().Get("token")+"; y="+r.Header.Get("X-Api-Key")+"; z="+r.Header.Get("Authorization"))
			_, _ = w.Write([]byte(echo(r)))
		}),
		"stream lost after echoing events, then 401": func(t *testing.T) string {
			return strings.TrimPrefix(serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n > 1 {
					http.Error(w, echo(r), http.StatusUnauthorized)
					return
				}
				stream(w)
				send(w, "1", echo(r))
				fmt.Fprintf(w, "data: %s\n", echo(r)) // cut mid-event
			}).URL, "http://")
		},
	} {
		t.Run(name, func(t *testing.T) {
			var logs testkit.Buffer
			o := testOptions()
			o.Supervisor.Name = ""                       // the default Name is the URL, redacted
			o.Supervisor.MaxAttempts = 3                 // a 401 with BeforeConnect set is retried
			o.Supervisor.MaxHint = 20 * time.Millisecond // Retry-After 1 is honored for 20ms
			o.Supervisor.ConnectTimeout = 500 * time.Millisecond
			o.Supervisor.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			o.Header = http.Header{"X-Api-Key": {"HDR-s3cret"}}
			rotation := 0
			o.BeforeConnect = func(_ context.Context, _ *url.URL, h http.Header) error {
				rotation++
				h.Set("Authorization", fmt.Sprintf("Bearer ROT-s3cret-%d", rotation))
				return nil
			}
			c := start(t, "http://alice:PW-s3cret@"+addr(t)+"/events?token=SECRET123&room=lobby", o, nil)
			st := testkit.WaitStatus(t, c, 5*time.Second, "an error", func(st health.Status) bool { return st.Err != nil })

			var reg health.Registry
			reg.Add("feed", c, true)
			rec := httptest.NewRecorder()
			reg.ReadyHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz?verbose=1", nil))
			<-c.Done()
			runErr := c.stop()
			var yielded []string
			for _, g := range c.loopEnds(t, 5*time.Second) {
				if g.err != nil {
					yielded = append(yielded, g.err.Error(), strings.Join(reachableStrings(g.err), "\n"))
				}
			}

			require.Error(t, runErr, "gave up after MaxAttempts")
			shown := map[string]string{
				"Status.Err":           st.Err.Error(),
				"Status.Err %+v":       fmt.Sprintf("%+v", st.Err),
				"Status.Err %#v":       fmt.Sprintf("%#v", st.Err),
				"Status.Err reflect":   strings.Join(reachableStrings(st.Err), "\n"),
				"Status.Name":          st.Name,
				"Name":                 c.Name(),
				"log":                  logs.String(),
				"readiness ?verbose=1": rec.Body.String(),
				"Run error":            runErr.Error(),
				"Run error reflect":    strings.Join(reachableStrings(runErr), "\n"),
				"Events errors":        strings.Join(yielded, "\n"),
			}
			require.Contains(t, rec.Body.String(), "error", "the verbose body shows the error")
			require.NotEmpty(t, logs.String())
			for where, text := range shown {
				for _, s := range secrets {
					assert.NotContains(t, text, s, "%s shows a credential:\n%s", where, text)
				}
				assert.NotContains(t, text, "no route for", "%s shows what the server sent", where)
			}
			t.Logf("Status.Err: %v", st.Err)
			t.Logf("Run: %v", runErr)
		})
	}
}

// reachableStrings returns every string reachable from v by reflection,
// unexported fields included: what a reflective logger could print.
func reachableStrings(v any) []string {
	var out []string
	seen := map[uintptr]bool{}
	var walk func(reflect.Value, int)
	walk = func(v reflect.Value, depth int) {
		if !v.IsValid() || depth > 50 {
			return
		}
		switch v.Kind() {
		case reflect.String:
			out = append(out, v.String())
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			walk(v.Elem(), depth+1)
		case reflect.Interface:
			walk(v.Elem(), depth+1)
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), depth+1)
			}
		case reflect.Slice, reflect.Array:
			if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
				b := make([]byte, v.Len())
				for i := range b {
					b[i] = byte(v.Index(i).Uint())
				}
				out = append(out, string(b))
				return
			}
			for i := range v.Len() {
				walk(v.Index(i), depth+1)
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				walk(k, depth+1)
				walk(v.MapIndex(k), depth+1)
			}
		}
	}
	walk(reflect.ValueOf(v), 0)
	return out
}

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
	shown = append(shown, runErr.Error(), strings.Join(reachableStrings(runErr), " "), logs.String())
	all := strings.Join(shown, "\n")
	assert.Contains(t, all, "token refresh failed: xxxxx was revoked")
	assert.Contains(t, all, `Content-Type "text/html; seen=xxxxx,xxxxx; xxxxx"`)
	assert.NotContains(t, all, "s3cret")
}
