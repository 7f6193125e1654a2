package httpcore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/internal/testing/conformance"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// shown gathers every text of s a program, a log or a page shows.
func shown(s *supervisor.Supervisor[*conn], logs *bytes.Buffer, more ...error) string {
	var b strings.Builder
	fmt.Fprintln(&b, s.Status().Err, s.Err(), logs)
	for _, tr := range s.History() {
		fmt.Fprintln(&b, tr.Err)
	}
	for _, err := range append(more, s.Status().Err, s.Err()) {
		fmt.Fprintln(&b, err, strings.Join(conformance.ReachableStrings(err), " "))
	}
	return b.String()
}

// TestSecretsEchoedAreMasked: a server that echoes every credential it got
// (the query, each part of a Cookie, the Basic authorization net/http
// derives from the userinfo) in a close reason and in an unexpected
// Content-Type. Neither the reason in the error's text nor the one
// errors.As finds, nor Status, History, the log or Run's error shows them.
func TestSecretsEchoedAreMasked(t *testing.T) {
	echo := func(r *http.Request) string {
		sid, _ := r.Cookie("sid")
		return fmt.Sprintf("query %s cookie sid=%s auth %q", r.URL.Query().Get("token"), sid.Value, r.Header.Get("Authorization"))
	}
	srv := serve(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			stream(w, r, "hello", "close 1011 "+echo(r))
			return
		}
		w.Header().Set("Content-Type", echo(r))
		w.WriteHeader(http.StatusOK)
	})
	u, _ := url.Parse(srv.URL + "/x?token=QUERY-SECRET")
	u.User = url.UserPassword("USER-SECRET", "PASS-SECRET")
	var logs syncBuffer
	o := fast()
	o.MaxAttempts = 1
	o.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := mustLines(t, u.String(), httpcore.Config{Header: http.Header{"Cookie": {"sid=COOKIE-SECRET; theme=dark"}}}, o)
	stop := testkit.Run(t, s)
	var yielded []error
	for m, err := range linesReader.Messages(t.Context(), s) {
		if err != nil {
			yielded = append(yielded, err)
			ce, ok := errors.AsType[*closeError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, 1011, ce.code)
			assert.Contains(t, ce.reason, "query xxxxx cookie xxxxx auth", "the reason errors.As finds is masked")
			continue
		}
		assert.Equal(t, "hello", m)
	}
	require.ErrorIs(t, stop(), supervisor.ErrFailed)
	require.Len(t, yielded, 1)
	all := shown(s, &logs.Buffer, yielded...)
	for _, secret := range []string{"QUERY-SECRET", "COOKIE-SECRET", "USER-SECRET", "PASS-SECRET", "VVNFUi1TRUNSRVQ6UEFTUy1TRUNSRVQ="} {
		assert.NotContains(t, all, secret)
	}
	assert.Contains(t, all, "not text/plain", "the refusal is there, masked")
}

// TestBeforeConnect: the hook's url and header are the attempt's (fresh
// copies every time); what any call set is masked after later calls
// replaced it, and so is the hook's own error text.
func TestBeforeConnect(t *testing.T) {
	var mu sync.Mutex
	var seen []string // the tokens the server got, in order
	srv := serve(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Query().Get("token")+" "+r.Header.Get("X-Key"))
		all := strings.Join(seen, ", ")
		mu.Unlock()
		stream(w, r, "close 1011 seen "+all) // every token so far, echoed
	})
	calls := 0
	hook := func(_ context.Context, u *url.URL, h http.Header) error {
		calls++
		if got := h.Get("X-Key"); got != "FIXED-KEY" {
			return backoff.Permanent(fmt.Errorf("the header is not a fresh copy: %q", got))
		}
		if calls == 4 {
			return fmt.Errorf("token refresh failed: TOKEN-%d was revoked", calls-1)
		}
		q := u.Query()
		q.Set("token", fmt.Sprintf("TOKEN-%d", calls))
		u.RawQuery = q.Encode()
		h.Set("X-Key", fmt.Sprintf("KEY-%d", calls))
		return nil
	}
	var logs syncBuffer
	o := fast()
	o.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	s := mustLines(t, srv.URL+"/x", httpcore.Config{Header: http.Header{"X-Key": {"FIXED-KEY"}}, BeforeConnect: hook}, o)
	stop := testkit.Run(t, s)
	var yielded []error
	for _, err := range linesReader.Messages(t.Context(), s) {
		if yielded = append(yielded, err); len(yielded) == 4 { // the 4th connection's close
			break
		}
	}
	require.NoError(t, stop())
	mu.Lock()
	assert.Equal(t, []string{"TOKEN-1 KEY-1", "TOKEN-2 KEY-2", "TOKEN-3 KEY-3", "TOKEN-5 KEY-5"}, seen)
	mu.Unlock()
	all := shown(s, &logs.Buffer, yielded...)
	assert.Contains(t, all, "token refresh failed: xxxxx was revoked")
	for _, secret := range []string{"TOKEN-", "KEY-", "FIXED-KEY"} {
		assert.NotContains(t, all, secret)
	}
}

func TestBeforeConnectThatBreaksTheAttemptIsFinal(t *testing.T) {
	srv := serve(t, func(_ int64, w http.ResponseWriter, r *http.Request) { stream(w, r) })
	for name, hook := range map[string]func(context.Context, *url.URL, http.Header) error{
		"scheme": func(_ context.Context, u *url.URL, _ http.Header) error { u.Scheme = "ftp"; return nil },
		"header": func(_ context.Context, _ *url.URL, h http.Header) error { h.Set("upgrade", "x"); return nil },
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		err := mustLines(t, srv.URL, httpcore.Config{BeforeConnect: hook}, fast()).Run(ctx)
		cancel()
		assert.ErrorIs(t, err, supervisor.ErrFailed, name)
		assert.Contains(t, err.Error(), "BeforeConnect: lines: ", name)
		assert.Zero(t, srv.requests.Load(), name)
	}
}

func TestReservedHeadersAreRefused(t *testing.T) {
	_, err := newLines("http://h/x", httpcore.Config{Header: http.Header{"upgrade": {"websocket"}}}, supervisor.Options[*conn]{})
	assert.EqualError(t, err, `lines: Header "Upgrade": set by the handshake`)
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
}

// With BeforeConnect, a 401, a 403 and a close 1008 are retried with the
// backoff: the next attempt may carry new credentials. The error keeps its
// chain: errors.As finds the close frame and the refusal.
func TestRotatingRetriesWhatWouldBeFinal(t *testing.T) {
	srv := serve(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		switch n {
		case 1:
			refuse(http.StatusUnauthorized)(n, w, r)
		case 2:
			refuse(http.StatusForbidden)(n, w, r)
		case 3:
			stream(w, r, "close 1008 token revoked")
		default:
			stream(w, r, "welcome")
		}
	})
	hook := func(context.Context, *url.URL, http.Header) error { return nil }
	s := mustLines(t, srv.URL, httpcore.Config{BeforeConnect: hook}, fast())
	stop := testkit.Run(t, s)
	var errs []error
	for m, err := range linesReader.Messages(t.Context(), s) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		assert.Equal(t, "welcome", m)
		break
	}
	require.Len(t, errs, 1)
	ce, ok := errors.AsType[*closeError](errs[0])
	require.True(t, ok, "%v", errs[0])
	assert.Equal(t, 1008, ce.code)
	var refusals []int
	for _, tr := range s.History() {
		if he, ok := errors.AsType[*httpcore.HandshakeError](tr.Err); ok {
			refusals = append(refusals, he.StatusCode)
		}
	}
	assert.Equal(t, []int{401, 403}, refusals)
	require.NoError(t, stop())
}

// syncBuffer is a bytes.Buffer a Logger writes from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.Write(p)
}

// TestBeforeConnectPanicIsNamed: a panic in BeforeConnect, which the
// core's Connect calls, says "BeforeConnect panicked" (it said "Connect
// panicked"), and Run panics again with the hook's own value.
func TestBeforeConnectPanicIsNamed(t *testing.T) {
	type boom struct{ s string }
	v := &boom{"rotate"}
	hook := func(context.Context, *url.URL, http.Header) error { panic(v) }
	s := mustLines(t, "http://127.0.0.1:1/x", httpcore.Config{BeforeConnect: hook}, fast())
	var got any
	func() {
		defer func() { got = recover() }()
		_ = s.Run(t.Context())
	}()
	assert.True(t, got == v, "Run panicked with %v, want the hook's value", got)
	err := s.Err()
	assert.ErrorIs(t, err, supervisor.ErrPanicked)
	assert.Contains(t, err.Error(), "BeforeConnect panicked: &{rotate}")
	assert.NotRegexp(t, `\bConnect panicked`, err.Error())
	t.Log(err.Error()[:min(len(err.Error()), 120)])
}
