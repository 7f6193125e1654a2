package rpc_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// A server that accepts and never answers (it hangs, or the proxy in
// front of it lost it) fails the attempt's first ping at
// ConnectTimeout; the failed attempt's connection is closed with its
// goroutines before the supervisor moves on.
func TestRPCSilentServerFailsTheAttempt(t *testing.T) {
	const connectTimeout = 100 * time.Millisecond
	h := testkit.NewStacksAt()
	r := newRPC(t, testkit.StartServer(t, testkit.Stall).Addr, func(o *rpc.Options) {
		o.Supervisor.ConnectTimeout = connectTimeout
		o.Supervisor.Logger = slog.New(h)
	})
	ch, unsub := r.Subscribe()
	defer unsub()
	start := time.Now()
	testkit.Run(t, r)
	st := testkit.Until(t, ch, testkit.Wait, "attempt failed", testkit.InState(health.Backoff))
	took := st.Since.Sub(start)
	t.Logf("attempt: %v (%v)", took, st.Err)
	assert.ErrorContains(t, st.Err, "connect: timed out after 100ms: ping")
	assert.GreaterOrEqual(t, took, connectTimeout)
	assert.Less(t, took, connectTimeout+testkit.Slack)

	testkit.Until(t, ch, testkit.Wait, "second attempt", func(st health.Status) bool { return st.ConsecutiveFailures >= 2 })
	at := h.At("attempt failed")
	require.NotEmpty(t, at)
	assertNoConnectionGoroutines(t, at[0])
}

func TestRPCFlappingServerBackoffNeverResets(t *testing.T) {
	for name, disable := range map[string]bool{"ping": false, "no ping": true} {
		t.Run(name, func(t *testing.T) {
			srv := testkit.StartServer(t, testkit.Drop)
			base, cap := 20*time.Millisecond, 320*time.Millisecond
			r := newRPC(t, srv.Addr, func(o *rpc.Options) {
				o.DisablePing = disable
				o.Supervisor.Backoff = testkit.Fast(base, cap)
			})
			stop := testkit.Run(t, r)
			testkit.AssertFlapping(t, r, base, cap, time.Second, 4, srv.Accepts.Load)
			t.Logf("last error %v", r.Status().Err)
			require.NoError(t, stop())
		})
	}
}
