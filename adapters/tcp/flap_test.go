package tcp_test

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

func TestFlappingServerBackoffNeverResets(t *testing.T) {
	srv := startServer(t, drop)
	base, cap, window := 20*time.Millisecond, 320*time.Millisecond, time.Second
	s := newTCP(t, tcp.Options{
		DialOptions: tcp.DialOptions{Address: srv.addr},
		Supervisor:  supervisor.Options[net.Conn]{Backoff: fast(base, cap)},
	})
	waits := recordWaits(s)
	stop := run(t, s)
	startProgram(t, s) // reads EOF at once and invalidates
	<-time.After(window)
	require.NoError(t, stop())

	accepts := int(srv.accepts.Load())
	limit := maxAttempts(base, cap, window)
	planned := waits()
	t.Logf("%d connections accepted in %v (backoff allows %d); planned waits %v", accepts, window, limit, planned)
	assert.LessOrEqual(t, accepts, limit)
	assert.GreaterOrEqual(t, accepts, 4, "the server flapped")
	assertGrowing(t, planned, base)
}

// recordWaits records the planned wait of every Backoff status seen; call
// the func it returns once, to stop and get them.
func recordWaits(s runner) func() []time.Duration {
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

// assertGrowing checks that the backoff never went back: every planned
// wait is at least base and at least the one before.
func assertGrowing(t *testing.T, waits []time.Duration, base time.Duration) {
	t.Helper()
	require.NotEmpty(t, waits)
	for i, w := range waits {
		assert.GreaterOrEqual(t, w, base, "wait %d of %v", i, waits)
		if i > 0 {
			assert.GreaterOrEqual(t, w, waits[i-1], "wait %d of %v: the backoff was reset", i, waits)
		}
	}
}
