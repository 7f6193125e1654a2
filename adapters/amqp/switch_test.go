package amqp_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/supervisor"
)

// Two replacements (Replace) while a Deliveries loop consumes a numbered
// stream: the consumer moves to each new connection at once (the old one
// is closed long before ConnectTimeout), the loop yields one ErrSwitched
// per replacement and no ErrMissed, and every message is acked once, or
// again only as a redelivery; nothing is left in the queue.
func TestReplaceMovesTheConsumerAndLosesNothing(t *testing.T) {
	const n, prefetch = 600, 16
	// The old connection used to be closed only at ConnectTimeout after
	// the switch; promptly is a small share of it (measured: tens of ms).
	const connectTimeout = 30 * time.Second
	b := rabbit.Get(t)
	q := queueName(t)
	o := amqp.Options{Topology: declare(q), Prefetch: prefetch}
	o.Supervisor.ConnectTimeout = connectTimeout
	c := newClient(t, b.URL(), o)
	connected(t, run(t, c))
	ctx := ctxFor(t, 2*connectTimeout)

	published := publishNumbered(ctx, b.Channel(t), q, n)

	closes := make(chan time.Duration, 2) // how long each old connection stayed open after Replace
	replace := func() {
		old, err := c.Sup().Conn(ctx)
		require.NoError(t, err)
		closed := old.NotifyClose(make(chan *amqp091.Error, 1))
		began := time.Now()
		c.Replace()
		go func() {
			select {
			case <-closed:
				closes <- time.Since(began)
			case <-ctx.Done():
				closes <- -1
			}
		}()
	}

	seen := make([]int, n)
	var distinct, switches, dups, replaced int
	var others []error
	for d, err := range c.Deliveries(ctx, q) {
		switch {
		case errors.Is(err, supervisor.ErrSwitched):
			assert.NotErrorIs(t, err, amqp.ErrMissed)
			switches++
		case err != nil:
			others = append(others, err)
		default:
			i, aerr := strconv.Atoi(string(d.Body))
			require.NoError(t, aerr)
			if seen[i] > 0 {
				dups++
				assert.True(t, d.Redelivered, "message %d delivered twice, the second time not as a redelivery", i)
			} else {
				distinct++
			}
			seen[i]++
			require.NoError(t, d.Ack(false), "message %d", i)
		}
		if replaced == 0 && distinct >= n/3 || replaced == 1 && switches == 1 && distinct >= 2*n/3 {
			replaced++
			replace()
		}
		if distinct == n && switches == 2 {
			break
		}
	}
	require.NoError(t, <-published)
	assert.Empty(t, others, "no error but the switches")
	assert.Equal(t, 2, switches, "one ErrSwitched per replacement")
	assert.Equal(t, n, distinct, "every message delivered")
	assert.Equal(t, uint64(3), c.Status().Connects, "the first connection and two replacements")
	for range replaced {
		d := <-closes
		t.Logf("old connection closed %v after Replace", d.Round(time.Millisecond))
		assert.True(t, d >= 0 && d < connectTimeout/3, "the old connection closed promptly, not at ConnectTimeout: %v", d)
	}
	t.Logf("%d messages, %d redelivered, %d switches", n, dups, switches)

	probe := b.Channel(t)
	left, ok, err := probe.Get(q, true)
	require.NoError(t, err)
	assert.False(t, ok, "an acked message is still queued: %s", left.Body)
}

// MaxConnectionAge replaces the connection on its own while a stream is
// consumed: each replacement is one ErrSwitched, never ErrMissed, and
// every message is acked.
func TestMaxConnectionAgeMovesTheConsumer(t *testing.T) {
	const n = 1500
	b := rabbit.Get(t)
	q := queueName(t)
	o := amqp.Options{Topology: declare(q), Prefetch: 16}
	o.Supervisor.MaxConnectionAge, o.Supervisor.MaxConnectionAgeJitter = 500*time.Millisecond, 100*time.Millisecond
	c := newClient(t, b.URL(), o)
	connected(t, run(t, c))
	ctx := ctxFor(t, time.Minute)
	published := publishNumbered(ctx, b.Channel(t), q, n)
	seen := make([]bool, n)
	var distinct, switches int
	for d, err := range c.Deliveries(ctx, q) {
		if err != nil {
			require.ErrorIs(t, err, supervisor.ErrSwitched)
			require.NotErrorIs(t, err, amqp.ErrMissed)
			switches++
		} else {
			i, aerr := strconv.Atoi(string(d.Body))
			require.NoError(t, aerr)
			if seen[i] {
				assert.True(t, d.Redelivered, "message %d delivered twice, the second time not as a redelivery", i)
			} else {
				distinct++
			}
			seen[i] = true
			require.NoError(t, d.Ack(false))
		}
		if distinct == n && switches >= 3 {
			break
		}
	}
	require.NoError(t, <-published)
	assert.Equal(t, n, distinct)
	replaced := int(c.Status().Connects) - 1
	t.Logf("%d messages, %d replacements by age, %d switches yielded", n, replaced, switches)
	assert.GreaterOrEqual(t, switches, 3)
	assert.Contains(t, []int{switches, switches + 1}, replaced, "one ErrSwitched per replacement (one may be under way)")
}

// publishNumbered publishes "0" to n-1 to q, one a millisecond, on its
// own goroutine; the channel gets nil once all went, or the first error.
func publishNumbered(ctx context.Context, pub *amqp091.Channel, q string, n int) <-chan error {
	published := make(chan error, 1)
	go func() {
		for i := range n {
			if err := pub.PublishWithContext(ctx, "", q, false, false, persistent(strconv.Itoa(i))); err != nil {
				published <- err
				return
			}
			time.Sleep(time.Millisecond)
		}
		published <- nil
	}()
	return published
}
