package postgres_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// TestSlowConsumerGetsBackpressureNotMemoryGrowth sends tens of megabytes
// of notifications to a Listener whose consumer does not read: the
// Listener must stop reading once its buffer is full (the process's heap
// stays flat, the server keeps the backlog) and then deliver everything,
// in order, once the consumer reads. Not parallel: it measures the heap.
func TestSlowConsumerGetsBackpressureNotMemoryGrowth(t *testing.T) {
	const n, buffer, payload = 60000, 16, 400
	admin := shared.Connect(t)
	l := newListener(t, shared.DSN(), postgres.ListenerOptions{Channels: []string{"flood"}, Buffer: buffer})
	testkit.Run(t, l)
	testkit.WaitStatus(t, l, 10*time.Second, "connected", testkit.InState(health.Connected))

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := admin.Exec(t.Context(), "SELECT pg_notify('flood', lpad(i::text, 6, '0') || repeat('x', $2)) FROM generate_series(1, $1) i", n, payload-6)
	require.NoError(t, err)

	// Nothing signals "the buffer is full": poll its length, with a
	// deadline. Then the consumer stays busy for a while, long enough for
	// a Listener without backpressure to read megabytes.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for postgres.Buffered(l) < buffer {
		require.True(t, time.Now().Before(deadline), "the buffer never filled: %d", postgres.Buffered(l))
		<-tick.C
	}
	busy := time.NewTimer(time.Second)
	<-busy.C
	var usage float64
	require.NoError(t, admin.QueryRow(t.Context(), "SELECT pg_notification_queue_usage()").Scan(&usage))
	runtime.GC()
	runtime.ReadMemStats(&after)
	growth := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("sent %d notifications (%.1f MB); heap growth while blocked: %d KB; server queue usage %.6f", n, float64(n*payload)/(1<<20), growth/1024, usage)
	assert.Less(t, growth, int64(2<<20), "the heap grew with the backlog")
	assert.Greater(t, usage, 0.0, "the server does not hold the backlog: someone read it")
	assert.LessOrEqual(t, postgres.Buffered(l), postgres.BufferCap(l))

	for i := 1; i <= n; i++ {
		n, err := next(t, l, 10*time.Second)
		require.NoError(t, err)
		require.Equal(t, "flood", n.Channel)
		require.Equal(t, fmt.Sprintf("%06d", i), n.Payload[:6], "out of order or lost")
		require.Len(t, n.Payload, payload)
	}
	assert.EqualValues(t, 1, l.Status().Connects)
	assert.Zero(t, postgres.Buffered(l), "a delivery after the last")
}
