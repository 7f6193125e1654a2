package testkit

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
)

// Fast is a deterministic backoff for socket tests.
func Fast(base, cap time.Duration) backoff.Config {
	return backoff.Config{Strategy: backoff.Exponential, Base: base, Cap: cap}
}

// MaxAttempts is how many attempts Exponential(base, cap) allows within
// window: the first is immediate, attempt i+1 comes at the earliest after
// the sum of the first i delays.
func MaxAttempts(base, cap, window time.Duration) int {
	n, elapsed, d := 1, time.Duration(0), base
	for {
		elapsed += d
		if elapsed > window {
			return n
		}
		n++
		d = min(2*d, cap)
	}
}

// RecordWaits records the planned wait of every Backoff status seen; call
// the func it returns once, to stop and get them.
func RecordWaits(s Subscriber) func() []time.Duration {
	ch, unsub := s.Subscribe()
	done := make(chan []time.Duration, 1)
	go func() {
		var waits []time.Duration
		for st := range ch {
			if st.State == health.Backoff {
				// NextAttempt is computed a few µs before Since is stamped.
				waits = append(waits, st.NextAttempt.Sub(st.Since).Round(time.Millisecond))
			}
		}
		done <- waits
	}()
	return func() []time.Duration { unsub(); return <-done }
}

// AssertGrowing checks that the backoff never went back: every planned
// wait is at least base and at least the one before.
func AssertGrowing(t testing.TB, waits []time.Duration, base time.Duration) {
	t.Helper()
	require.NotEmpty(t, waits)
	for i, w := range waits {
		assert.GreaterOrEqual(t, w, base, "wait %d of %v", i, waits)
		if i > 0 {
			assert.GreaterOrEqual(t, w, waits[i-1], "wait %d of %v: the backoff was reset", i, waits)
		}
	}
}

// AssertFlapping watches s, a client of a server that drops every
// connection at once, for window: the attempts the server counts stay
// within what Fast(base, cap) allows, at least least come, and the
// planned waits never shrink (a connection that broke before StableAfter
// does not reset the backoff).
func AssertFlapping(t testing.TB, s Subscriber, base, cap, window time.Duration, least int64, attempts func() int64) {
	t.Helper()
	waits := RecordWaits(s)
	<-time.After(window)
	got, allowed, planned := attempts(), MaxAttempts(base, cap, window), waits()
	t.Logf("%d attempts in %v (backoff allows %d); planned waits %v", got, window, allowed, planned)
	assert.LessOrEqual(t, got, int64(allowed))
	assert.GreaterOrEqual(t, got, least, "the client did come back")
	AssertGrowing(t, planned, base)
}

// AssertFlappingNeverResets checks, for start's reading client, against serve's server completing every handshake and
// dropping the connection at once, without a close frame: the client keeps
// backing off, as AssertFlapping checks.
func AssertFlappingNeverResets[P, C comparable](t *testing.T, serve FeedWith[P], start StartWS[C]) {
	const base, maxWait = 20 * time.Millisecond, time.Second
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) bool {
		if raw, _, err := upgradeByHand(w, r); err == nil {
			_ = raw.Close()
		}
		return true
	})
	w := Socket(true)
	w.Settings.Backoff = Fast(base, maxWait)
	c := start(t, srv.URL("/feed"), w)
	AssertFlapping(t, c, base, maxWait, 1500*time.Millisecond, 3, srv.Handshakes.Load)
	require.NoError(t, c.Stop())
}
