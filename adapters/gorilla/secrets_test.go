package gorilla_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// secrets are the credentials in secretURL and secretHeader; none may be
// shown anywhere. The user name and password also travel as Basic
// authorization, whose value is a secret too.
var secrets = []string{"PW-s3cret", "TOK-s3cret", "KEY-s3cret", "PASS-s3cret", "SEC-s3cret", "SIG-s3cret", "HDR-s3cret", "YWxpY2U6UFctczNjcmV0"}

func secretURL(addr string) string {
	return "ws://alice:PW-s3cret@" + addr + "/feed?token=TOK-s3cret&key=KEY-s3cret&password=PASS-s3cret&secret=SEC-s3cret&signature=SIG-s3cret&room=lobby"
}

var secretHeader = http.Header{"X-Api-Key": {"HDR-s3cret"}}

func TestCredentialsNeverShown(t *testing.T) {
	refusedAddr := func(t *testing.T) string { // nothing listens there
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		return addr
	}
	echoing := func(code int) func(t *testing.T) string { // the body repeats the request
		return func(t *testing.T) string {
			return httpServer(t, func(_ *server, w http.ResponseWriter, r *http.Request) {
				http.Error(w, "no route for "+r.URL.String()+" auth "+r.Header.Get("Authorization")+" key "+r.Header.Get("X-Api-Key"), code)
			}).addr
		}
	}
	for name, addr := range map[string]func(*testing.T) string{
		"connection refused": refusedAddr,
		"handshake 503":      echoing(http.StatusServiceUnavailable),
		"handshake 401":      echoing(http.StatusUnauthorized),
		"handshake timeout":  silentServer,
		"connection lost":    func(t *testing.T) string { return closingServer(t, impls[0], 1001, "bye").addr },
	} {
		t.Run(name, func(t *testing.T) {
			var logs testkit.Buffer
			o := testOptions()
			o.Header = secretHeader
			o.Supervisor.ConnectTimeout = 200 * time.Millisecond
			o.Supervisor.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			o.Supervisor.Name = "" // the default Name is the URL, redacted
			c := run(t, secretURL(addr(t)), o, true)
			st := testkit.WaitStatus(t, c, 5*time.Second, "an error", func(st health.Status) bool { return st.Err != nil })

			var reg health.Registry
			reg.Add("feed", c, true)
			rec := httptest.NewRecorder()
			healthhttp.ReadyHandler(&reg).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz?verbose=1", nil))
			runErr := c.stop()

			shown := map[string]string{
				"Status.Err":           st.Err.Error(),
				"Status.Err %+v":       fmt.Sprintf("%+v", st.Err),
				"Status.Err %#v":       fmt.Sprintf("%#v", st.Err),
				"Status.Err reflect":   strings.Join(reachableStrings(st.Err), "\n"),
				"Status.Name":          st.Name,
				"log":                  logs.String(),
				"readiness ?verbose=1": rec.Body.String(),
			}
			if runErr != nil {
				shown["Run error"] = runErr.Error()
				shown["Run error reflect"] = strings.Join(reachableStrings(runErr), "\n")
			}
			require.Contains(t, rec.Body.String(), `"last_error"`, "the verbose body shows the error")
			require.NotEmpty(t, logs.String())
			for where, text := range shown {
				for _, s := range secrets {
					assert.NotContains(t, text, s, "%s shows a credential:\n%s", where, text)
				}
				assert.NotContains(t, text, "no route for", "%s shows the response body", where)
			}
			t.Logf("Status.Err: %v", st.Err)
		})
	}
}

// TestSecretTheServerSendsBackIsMasked: the url carries a token under a
// name no list knows (jwt), a header carries another, and the server
// closes with a reason that repeats both. Neither reaches the error
// Messages yields, Status.Err, the log, the readiness body, nor — for a
// 1008 that ends in Failed — Run's and Conn's errors, in text or by
// reflection; the close status is still there for CloseStatus.
func TestSecretTheServerSendsBackIsMasked(t *testing.T) {
	const token, header = "SECRET123", "HDR-SECRET-9"
	eachImpl(t, func(t *testing.T, im impl) {
		for _, tc := range []struct {
			code   int
			reason string
			final  health.State
		}{
			{websocket.CloseInternalServerErr, "session " + token + " expired (" + header + ")", health.Backoff},
			{websocket.ClosePolicyViolation, "token " + token + " revoked (" + header + ")", health.Failed},
		} {
			t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
				srv := closingServer(t, im, tc.code, tc.reason)
				var logs testkit.Buffer
				o := testOptions()
				o.Supervisor.Name = ""
				o.Header = http.Header{"X-Api-Key": {header}}
				o.Supervisor.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				s, err := gorilla.New(srv.url("/feed?jwt="+token), o)
				require.NoError(t, err)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				go func() { _ = s.Run(ctx) }()

				var readErr error
				for _, err := range gorilla.Messages(ctx, s) {
					if err != nil {
						readErr = err
						break
					}
				}
				require.Error(t, readErr)
				assert.Equal(t, tc.code, gorilla.CloseStatus(readErr), "the close status survives the masking")
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
	})
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
