package sse_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/sse"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// failedAtOnce checks that c gave up after exactly one attempt, that its
// Events loop ended and that Run's error wraps supervisor.ErrFailed, and
// returns that error.
func failedAtOnce(t *testing.T, c *client, srv *server) error {
	t.Helper()
	st := testkit.WaitStatus(t, c, 5*time.Second, "failed", testkit.InState(health.Failed))
	assert.Equal(t, uint64(1), st.Failures, "one attempt")
	assert.Equal(t, 1, srv.count(), "one request")
	assert.Empty(t, c.loopEnds(t, 5*time.Second), "the Events loop ends, yielding nothing")
	<-c.Done()
	err := c.Err()
	require.Error(t, err)
	assert.ErrorIs(t, err, supervisor.ErrFailed)
	assert.Equal(t, err, c.stop(), "Run's error")
	var re *sse.ResponseError
	assert.True(t, errors.As(err, &re), "a ResponseError: %v", err)
	return err
}

// TestNoContentStopsForGood: 204 is the server's "do not reconnect".
func TestNoContentStopsForGood(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusNoContent) })
	c := start(t, srv.URL+"/events", testOptions(), nil)
	err := failedAtOnce(t, c, srv)
	assert.EqualError(t, err, "redial feed: gave up: connect: get \""+srv.URL+"/events\": server answered 204 No Content: the server ended the stream for good")
}

// TestNotAnEventStreamFails: a 200 with an HTML page is a wrong url, said
// clearly, with the type that came.
func TestNotAnEventStreamFails(t *testing.T) {
	for ct, want := range map[string]string{
		"text/html; charset=utf-8": `server answered 200 OK with Content-Type "text/html; charset=utf-8", not text/event-stream`,
		"":                         `server answered 200 OK with no Content-Type, not text/event-stream`,
	} {
		t.Run(ct, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header()["Content-Type"] = []string{ct}
				_, _ = w.Write([]byte("<html>login</html>"))
			})
			c := start(t, srv.URL+"/events", testOptions(), nil)
			err := failedAtOnce(t, c, srv)
			assert.ErrorContains(t, err, want)
			assert.NotContains(t, err.Error(), "login", "the body is not read")
		})
	}
	t.Run("parameters and case", func(t *testing.T) {
		srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Content-Type", "Text/Event-Stream; charset=utf-8")
			w.WriteHeader(http.StatusOK)
			send(w, "1", "ok")
			<-r.Context().Done()
		})
		c := start(t, srv.URL+"/events", testOptions(), nil)
		assert.Equal(t, "ok", c.next(t, 5*time.Second).ev.Data, "an event stream, whatever the case and parameters")
		require.NoError(t, c.stop())
	})
}

// TestRefusedForGood: 401, 403 and 404 without BeforeConnect give up at
// the first answer.
func TestRefusedForGood(t *testing.T) {
	for _, code := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) { http.Error(w, "no", code) })
			c := start(t, srv.URL+"/events", testOptions(), nil)
			err := failedAtOnce(t, c, srv)
			assert.ErrorContains(t, err, "server answered "+strconv.Itoa(code)+" "+http.StatusText(code))
		})
	}
}

// TestBeforeConnectRotatesTheToken: the server accepts only the newest
// token; the first attempt's has expired by the time it arrives. With
// BeforeConnect the 401 is retried, and the next attempt's new token gets
// in: no Failed. The hook sees copies: its changes do not pile up.
func TestBeforeConnectRotatesTheToken(t *testing.T) {
	var minted atomic.Int64
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Header.Get("Authorization") != "Bearer tok-2" || r.URL.Query().Get("sig") != "sig-2" {
			http.Error(w, "token expired", http.StatusUnauthorized)
			return
		}
		stream(w)
		send(w, "1", "in")
		<-r.Context().Done()
	})
	o := testOptions()
	var seen []string
	o.BeforeConnect = func(_ context.Context, u *url.URL, h http.Header) error {
		seen = append(seen, u.RawQuery+" "+h.Get("Authorization"))
		n := strconv.FormatInt(minted.Add(1), 10)
		q := u.Query()
		q.Set("sig", "sig-"+n)
		u.RawQuery = q.Encode()
		h.Set("Authorization", "Bearer tok-"+n)
		return nil
	}
	c := start(t, srv.URL+"/events?room=1", o, nil)
	rec := testkit.Record(c)
	assert.Equal(t, "in", c.next(t, 5*time.Second).ev.Data)
	st := c.Status()
	require.NoError(t, c.stop())
	assert.NotContains(t, rec.Stop(), health.Failed)
	assert.Equal(t, uint64(1), st.Failures, "the expired token's attempt")
	assert.Equal(t, []string{"room=1 ", "room=1 "}, seen, "each attempt starts from the url and Header")
}

// TestBeforeConnectErrorFailsTheAttempt: an error from the hook is a
// failed attempt, retried; a Permanent one gives up.
func TestBeforeConnectErrorFailsTheAttempt(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		<-r.Context().Done()
	})
	var calls atomic.Int64
	o := testOptions()
	o.BeforeConnect = func(context.Context, *url.URL, http.Header) error {
		if calls.Add(1) == 1 {
			return errors.New("token service down")
		}
		return nil
	}
	c := start(t, srv.URL+"/events", o, nil)
	st := testkit.WaitStatus(t, c, 5*time.Second, "connected", connected(1))
	assert.Equal(t, uint64(1), st.Failures)
	assert.ErrorContains(t, st.Err, "BeforeConnect: token service down")
	require.NoError(t, c.stop())

	o.BeforeConnect = func(context.Context, *url.URL, http.Header) error {
		return backoff.Permanent(errors.New("revoked"))
	}
	c = start(t, srv.URL+"/events", o, nil)
	st = testkit.WaitStatus(t, c, 5*time.Second, "failed", testkit.InState(health.Failed))
	assert.Equal(t, uint64(1), st.Failures)
	assert.ErrorIs(t, c.stop(), supervisor.ErrFailed)
	assert.ErrorContains(t, st.Err, "BeforeConnect: revoked")
}

// TestOverloadRetryAfterIsAHint: 503 and 429 with Retry-After lengthen
// the next wait; the attempt after it gets in.
func TestOverloadRetryAfterIsAHint(t *testing.T) {
	for _, code := range []int{http.StatusServiceUnavailable, http.StatusTooManyRequests} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					w.Header().Set("Retry-After", "2")
					http.Error(w, "busy", code)
					return
				}
				stream(w)
				<-r.Context().Done()
			})
			c := start(t, srv.URL+"/events", testOptions(), nil)
			st := testkit.WaitStatus(t, c, 5*time.Second, "backoff", testkit.InState(health.Backoff))
			assert.GreaterOrEqual(t, st.NextAttempt.Sub(st.LastFailure), 2*time.Second)
			assert.ErrorContains(t, st.Err, "(Retry-After 2s)")
			var re *sse.ResponseError
			require.ErrorAs(t, st.Err, &re)
			assert.Equal(t, code, re.StatusCode)
			assert.Equal(t, 2*time.Second, re.RetryAfter)
			require.NoError(t, c.stop())
		})
	}
}

// TestServerErrorIsAnOrdinaryRetry: a 500 is retried with the backoff.
func TestServerErrorIsAnOrdinaryRetry(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n <= 2 {
			http.Error(w, "oops", http.StatusInternalServerError)
			return
		}
		stream(w)
		<-r.Context().Done()
	})
	c := start(t, srv.URL+"/events", testOptions(), nil)
	st := testkit.WaitStatus(t, c, 5*time.Second, "connected", connected(1))
	assert.Equal(t, uint64(2), st.Failures)
	require.NoError(t, c.stop())
}
