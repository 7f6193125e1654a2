package sse_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// lostStatus waits for the Backoff after the first stream broke.
func lostStatus(t *testing.T, c *client) health.Status {
	return testkit.WaitStatus(t, c, 5*time.Second, "backoff after the loss", func(st health.Status) bool {
		return st.State == health.Backoff && st.Connects == 1
	})
}

// TestRetryFieldLengthensTheNextWait: a server that says `retry: 3000`
// and ends the stream. The backoff alone would wait 5ms; the next attempt
// is due 3s after the loss, and not much later. No waiting: the Status
// says when.
func TestRetryFieldLengthensTheNextWait(t *testing.T) {
	for _, retry := range []string{"3000", "3000\r"} { // CRLF line ends too
		t.Run(fmt.Sprintf("%q", retry), func(t *testing.T) {
			delivered := make(chan got, 1)
			srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
				stream(w)
				fmt.Fprintf(w, "retry: %s\n\n", retry)
				send(w, "1", "hello")
				<-delivered // then the stream ends
			})
			c := start(t, srv.URL+"/events", testOptions(), func(g got) { delivered <- g })
			st := lostStatus(t, c)
			wait := st.NextAttempt.Sub(st.LastFailure)
			t.Logf("next attempt %v after the loss: %v", wait, st.Err)
			assert.GreaterOrEqual(t, wait, 3*time.Second, "retry: 3000 is a hint")
			assert.Less(t, wait, 3*time.Second+100*time.Millisecond, "the hint, not more")
			g := c.next(t, time.Second)
			assert.Equal(t, "hello", g.ev.Data, "the retry-only block is not an event")
			assert.Equal(t, "1", g.ev.ID)
			require.NoError(t, c.stop())
		})
	}
}

// TestRetryFieldNeverShortensTheWait: `retry: 1` after a stream that
// broke soon (flapping) leaves the backoff's own wait.
func TestRetryFieldNeverShortensTheWait(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		fmt.Fprint(w, "retry: 1\n\n")
		send(w, "1", "hello")
	})
	o := testOptions()
	o.Supervisor.Backoff.Base, o.Supervisor.Backoff.Cap = 400*time.Millisecond, 400*time.Millisecond
	c := start(t, srv.URL+"/events", o, nil)
	st := lostStatus(t, c)
	assert.GreaterOrEqual(t, st.NextAttempt.Sub(st.LastFailure), 400*time.Millisecond)
	require.NoError(t, c.stop())
}

// TestWithoutRetryFieldTheBackoffDecides is the baseline of the two above.
func TestWithoutRetryFieldTheBackoffDecides(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		send(w, "1", "hello")
	})
	c := start(t, srv.URL+"/events", testOptions(), nil)
	st := lostStatus(t, c)
	assert.Less(t, st.NextAttempt.Sub(st.LastFailure), time.Second)
	require.NoError(t, c.stop())
}

// TestRetryFieldLastsForTheClientsLife: as EventSource's reconnection
// time, a `retry:` holds after the stream it came on: the wait after a
// later stream that sent none, and after a failed attempt, is at least as
// long (issue 22: it was 401ms after a stream without one, not 1.5s).
func TestRetryFieldLastsForTheClientsLife(t *testing.T) {
	const retry = 500 * time.Millisecond
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 1:
			stream(w)
			fmt.Fprintf(w, "retry: %d\n\n", retry.Milliseconds())
			send(w, "1", "says retry")
		case 2:
			stream(w)
			send(w, "2", "says nothing")
		case 3:
			http.Error(w, "busy", http.StatusServiceUnavailable) // no Retry-After
		default:
			stream(w)
			<-r.Context().Done()
		}
	})
	c := start(t, srv.URL+"/events", testOptions(), nil)
	ch, stop := c.Subscribe()
	defer stop()
	for _, step := range []struct {
		what string
		ok   func(health.Status) bool
	}{
		{"the loss of the stream that said retry", func(st health.Status) bool { return st.State == health.Backoff && st.Connects == 1 }},
		{"the loss of the stream that said nothing", func(st health.Status) bool { return st.State == health.Backoff && st.Connects == 2 }},
		{"the refused attempt", func(st health.Status) bool { return st.State == health.Backoff && st.ConsecutiveFailures == 1 }},
	} {
		st := testkit.Until(t, ch, 5*time.Second, step.what, step.ok)
		wait := st.NextAttempt.Sub(st.LastFailure)
		t.Logf("%s: next attempt %v after it (%v)", step.what, wait, st.Err)
		assert.GreaterOrEqual(t, wait, retry, step.what)
		assert.Less(t, wait, retry+100*time.Millisecond, "%s: the hint, not more", step.what)
	}
	require.NoError(t, c.stop())
}

// TestRetryZeroResetsTheReconnectionTime: `retry: 0` sets the reconnection
// time to 0 (WHATWG), so the 3s an earlier stream asked for no longer
// holds: the next wait is the backoff's (5ms..50ms). Before, a 0 was taken
// for no field and the 3s held.
func TestRetryZeroResetsTheReconnectionTime(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		switch n {
		case 1:
			fmt.Fprint(w, "retry: 3000\n\n")
		case 2:
			fmt.Fprint(w, "retry:0\r\n\r\n") // no space, CRLF: still the field
		default:
			<-r.Context().Done()
		}
		send(w, strconv.Itoa(n), "hello")
	})
	c := start(t, srv.URL+"/events", testOptions(), nil)
	ch, stop := c.Subscribe()
	defer stop()
	st := testkit.Until(t, ch, 5*time.Second, "the first loss", func(st health.Status) bool { return st.State == health.Backoff && st.Connects == 1 })
	assert.GreaterOrEqual(t, st.NextAttempt.Sub(st.LastFailure), 3*time.Second, "retry: 3000 holds")
	st = testkit.Until(t, ch, 10*time.Second, "the second loss", func(st health.Status) bool { return st.State == health.Backoff && st.Connects == 2 })
	assert.Less(t, st.NextAttempt.Sub(st.LastFailure), time.Second, "retry: 0 left the backoff's wait")
	require.NoError(t, c.stop())
}
