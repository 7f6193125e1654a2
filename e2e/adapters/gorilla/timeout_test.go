package gorilla_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// toxiproxy latency longer than ConnectTimeout: the handshake's answer
// comes too late, and the first attempt ends, in Backoff, ConnectTimeout
// after it began.
func TestLatencyBeyondConnectTimeout(t *testing.T) {
	srv := startServer(t, nil)
	p := toxitest.New(t, srv.Addr)
	p.Latency(t, "slow", time.Second)
	t.Cleanup(func() { // interrupts the toxic's goroutines, which sleep through the latency
		p.Remove(t, "slow-up")
		p.Remove(t, "slow-down")
	})

	const connectTimeout = 300 * time.Millisecond
	o := testOptions()
	o.Supervisor.ConnectTimeout = connectTimeout
	late := testkit.MeasureLateness(t)
	began := time.Now() // the first attempt is immediate
	c := run(t, "ws://"+p.Addr()+"/feed", o, true)
	st := testkit.WaitStatus(t, c, 5*time.Second, "the attempt to fail", testkit.InState(health.Backoff))
	took := st.Since.Sub(began)
	// The attempt's timer, the supervisor publishing Backoff and the
	// dial's start each wake up as late as the machine makes them.
	bound := late.Bound(connectTimeout, 200*time.Millisecond, 3)
	t.Logf("attempt ended after %v (ConnectTimeout %v, bound %v): %v", took, connectTimeout, bound, st.Err)
	assert.GreaterOrEqual(t, took, connectTimeout)
	assert.Less(t, took, bound)
	assert.ErrorIs(t, st.Err, context.DeadlineExceeded)
	assert.Contains(t, st.Err.Error(), "timed out after 300ms")
	assert.Equal(t, 1, st.ConsecutiveFailures)
	require.NoError(t, c.Stop())
}
