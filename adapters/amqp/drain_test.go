package amqp_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// Drain with deliveries unacked in the consumer's buffer: readiness
// drops, the broker shows the consumer cancelled while the connection is
// still open, the deliveries received before the cancel are still yielded
// and their acks reach the broker, the loop ends without an error, and
// every message is either acked or back in the queue: none lost.
func TestDrainCancelsTheConsumerAndLosesNothing(t *testing.T) {
	const n, prefetch = 40, 8
	b := rabbit.Get(t)
	q := queueName(t)
	c := newClient(t, b.URL(), amqp.Options{Topology: declare(q), Prefetch: prefetch})
	connected(t, run(t, c))
	reg := &health.Registry{}
	reg.Add("broker", c, health.SourceOptions{Critical: true})
	for i := range n {
		require.NoError(t, c.Publish(ctxFor(t, 10*time.Second), "", q, persistent(fmt.Sprint(i))))
	}
	probe := b.Channel(t)
	consumers := func() int {
		qi, err := probe.QueueDeclarePassive(q, true, false, false, false, nil)
		require.NoError(t, err)
		return qi.Consumers
	}

	var acked []string
	var drained chan error
	var began time.Time
	cancelSeen, acksAfter := false, 0
	for d, err := range c.Deliveries(ctxFor(t, time.Minute), q) {
		require.NoError(t, err, "a drain yields no error")
		if drained == nil && len(acked) == 5 {
			drained = make(chan error, 1)
			began = time.Now()
			go func() { drained <- c.Drain(ctxFor(t, 30*time.Second)) }()
			for !c.Draining() {
				time.Sleep(time.Millisecond)
			}
			assert.False(t, reg.Ready(), "not ready from the drain's start")
			assert.ErrorIs(t, c.Publish(context.Background(), "", q, persistent("late")), supervisor.ErrDraining, "no new work")
		}
		if drained != nil && !cancelSeen {
			deadline := time.Now().Add(10 * time.Second)
			for consumers() != 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			require.Zero(t, consumers(), "the consumer is cancelled while the program still holds a delivery")
			assert.Equal(t, health.Connected, c.Status().State, "the connection is still open")
			cancelSeen = true
		}
		require.NoError(t, d.Ack(false), "acks reach the broker through the drain")
		acked = append(acked, string(d.Body))
		if drained != nil {
			acksAfter++
		}
	}
	require.NotNil(t, drained, "the loop ended before the drain")
	require.NoError(t, <-drained)
	t.Logf("drain: %d deliveries yielded and acked after it began; Stopped %v after it began", acksAfter, time.Since(began).Round(time.Millisecond))
	assert.Equal(t, health.Stopped, c.Status().State)
	assert.Positive(t, acksAfter)
	assert.LessOrEqual(t, len(acked), 5+prefetch+1, "no delivery after the cancel but those already sent")

	// What was not acked is back in the queue: every message once.
	left := map[string]bool{}
	for {
		d, ok, err := probe.Get(q, true)
		require.NoError(t, err)
		if !ok {
			break
		}
		left[string(d.Body)] = true
	}
	for _, a := range acked {
		assert.False(t, left[a], "acked and still queued: %s", a)
		left[a] = true
	}
	var all []string
	for k := range left {
		all = append(all, k)
	}
	sort.Strings(all)
	t.Logf("drain: %d of %d messages acked or requeued, %d acked (prefetch %d)", len(all), n, len(acked), prefetch)
	assert.Len(t, all, n, "every message acked or requeued: %v", all)
}
