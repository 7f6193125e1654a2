package testkit

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Main is an example's main without the process: it runs with args and
// returns the exit code.
type Main func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// ExitsForGood runs main against a server that refuses for good and checks
// what a user must see: an exit within 5s, a non-zero code, and one clear
// error line on stderr that contains want — never a loop. It returns
// stdout.
func ExitsForGood(t testing.TB, main Main, want string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a loop is caught below, not here
	defer cancel()
	var stdout, stderr Buffer
	start := time.Now()
	code := main(ctx, args, &stdout, &stderr)
	took := time.Since(start)
	if took > 5*time.Second {
		t.Errorf("exited after %v, want within 5s", took)
	}
	if code == 0 {
		t.Errorf("exit code 0, want non-zero")
	}
	errText := strings.TrimSuffix(stderr.String(), "\n")
	t.Logf("exit %d after %v; stderr: %s", code, took.Round(time.Millisecond), errText)
	if lines := strings.Split(errText, "\n"); errText == "" || len(lines) != 1 {
		t.Errorf("stderr has %d lines, want one clear error line:\n%s", len(lines), errText)
	}
	if !strings.Contains(errText, want) {
		t.Errorf("stderr %q does not say %q", errText, want)
	}
	if n := strings.Count(stdout.String(), "\n"); n > 20 {
		t.Errorf("stdout has %d lines: a loop?\n%s", n, firstLines(stdout.String(), 20))
	}
	return stdout.String()
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// Unauthorized starts an HTTP server on 127.0.0.1 that answers every
// request, WebSocket handshakes and event streams included, with 401, and
// returns its address (host:port). It stops when the test ends.
func Unauthorized(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such token", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}
