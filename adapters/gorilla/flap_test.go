package gorilla_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
)

// A server that accepts and drops every connection at once: the client
// keeps backing off (a connection that broke before StableAfter never
// resets the backoff), so the handshakes the server counts in a fixed
// window stay within what the backoff allows.
func TestFlappingServerNeverResetsTheBackoff(t *testing.T) {
	srv := startServer(t, impls[0], func(s *server, w http.ResponseWriter, r *http.Request) {
		if p := s.accept(w, r, acceptOpts{}); p != nil {
			s.forget(p) // dropped at once, without a close frame
		}
	})
	const base, maxWait, window = 20 * time.Millisecond, time.Second, 1500 * time.Millisecond
	o := testOptions()
	o.Supervisor.Backoff = backoff.Config{Strategy: backoff.Exponential, Base: base, Cap: maxWait}

	// The most attempts the backoff allows in the window: the first at
	// once, then after 20ms, 40ms, 80ms, ... each waiting its full delay.
	allowed, at := 1, time.Duration(0)
	for d := base; ; d = min(2*d, maxWait) {
		if at += d; at > window {
			break
		}
		allowed++
	}

	c := run(t, srv.url("/feed"), o, true)
	ch, unsub := c.Subscribe()
	defer unsub()
	var waits []time.Duration
	end := time.After(window)
collect:
	for {
		select {
		case st := <-ch:
			if st.State == health.Backoff {
				waits = append(waits, st.NextAttempt.Sub(st.Since))
			}
		case <-end:
			break collect
		}
	}
	got := srv.handshakes.Load()
	t.Logf("handshakes in %v: %d (backoff allows %d); planned waits seen: %v", window, got, allowed, waits)
	assert.LessOrEqual(t, got, int64(allowed))
	assert.GreaterOrEqual(t, got, int64(3), "the client did come back")
	require.NotEmpty(t, waits)
	for i := 1; i < len(waits); i++ {
		assert.GreaterOrEqual(t, waits[i], waits[i-1]-time.Millisecond, "the backoff reset while flapping: %v", waits)
	}
	require.NoError(t, c.stop())
}
