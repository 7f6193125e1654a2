package amqp_test

import (
	"context"
	"errors"
	"iter"
	"sync/atomic"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
)

// persistent is a message that survives a broker's crash once confirmed.
func persistent(body string) amqp091.Publishing {
	return amqp091.Publishing{Body: []byte(body), DeliveryMode: amqp091.Persistent}
}

// pull returns the next delivery or error of next, failing t when the
// loop ended.
func pull(t *testing.T, next func() (amqp.Delivery, error, bool)) (amqp.Delivery, error) {
	t.Helper()
	d, err, ok := next()
	require.True(t, ok, "the Deliveries loop ended")
	return d, err
}

// The broker is killed (SIGKILL) and started again while a consumer holds
// an unacked delivery and a Publish waits: the consumer says ErrMissed
// once, the unacked delivery comes again marked Redelivered, its old ack
// fails with ErrStaleDelivery, the Publish made during the outage is
// confirmed after the restart, and Topology ran on both connections.
func TestKilledBrokerComesBack(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	var topologies atomic.Int32
	c := newClient(t, b.URL(), amqp.Options{Topology: func(ctx context.Context, ch *amqp091.Channel) error {
		topologies.Add(1)
		return declare(q)(ctx, ch)
	}})
	st := run(t, c)
	connected(t, st)
	ctx := ctxFor(t, 90*time.Second)
	require.NoError(t, c.Publish(ctx, "", q, persistent("1")))
	require.NoError(t, c.Publish(ctx, "", q, persistent("2")))
	next, stop := iter.Pull2(c.Deliveries(ctx, q))
	defer stop()
	d1, err := pull(t, next)
	require.NoError(t, err)
	d2, err := pull(t, next)
	require.NoError(t, err)
	assert.Equal(t, []string{"1", "2"}, []string{string(d1.Body), string(d2.Body)})
	assert.False(t, d1.Redelivered || d2.Redelivered)
	require.NoError(t, d1.Ack(false))

	b.Sync(t) // a crash loses a queue declared in the last seconds, and its messages
	b.Kill(t)
	lost := until(t, st, "the loss", func(s health.Status) bool { return s.State != health.Connected })
	t.Logf("lost: %v", lost.Err)
	published := make(chan error, 1)
	go func() { published <- c.Publish(ctx, "", q, persistent("3")) }()
	err = d2.Ack(false)
	assert.ErrorIs(t, err, amqp.ErrStaleDelivery, "an ack on the dead connection says so")
	start := time.Now()
	b.Start(t)
	t.Logf("broker restarted in %v", time.Since(start))
	start = time.Now()

	_, err = pull(t, next)
	require.ErrorIs(t, err, amqp.ErrMissed)
	t.Logf("yielded %v %v after the restart", err, time.Since(start))
	got := map[string]bool{}
	for !got["2"] || !got["3"] {
		d, err := pull(t, next)
		require.NoError(t, err, "one ErrMissed per reconnect")
		body := string(d.Body)
		assert.Equal(t, body != "3", d.Redelivered, "delivery %s: Redelivered marks what came before", body)
		got[body] = true
		require.NoError(t, d.Ack(false))
	}
	require.NoError(t, <-published, "the Publish made while the broker was down")
	assert.EqualValues(t, 2, topologies.Load(), "Topology ran on every connection")
	assert.EqualValues(t, 2, c.Status().Connects)
}

// stop_app: the broker says CONNECTION_FORCED (320), which is retried
// until start_app.
func TestStopAppIsRetried(t *testing.T) {
	b := rabbit.Get(t)
	f := startConsuming(t, b, 3*time.Minute)
	c, st, next := f.c, f.st, f.next
	require.NoError(t, c.Publish(f.ctx, "", f.q, persistent("a")))
	_, err := pull(t, next)
	require.NoError(t, err)

	b.StopApp(t)
	refused := until(t, st, "a refused attempt", func(s health.Status) bool { return s.State == health.Backoff && s.ConsecutiveFailures > 0 })
	lost := lossOf(t, c)
	var ae *amqp091.Error
	require.True(t, errors.As(lost, &ae), "%v", lost)
	assert.Equal(t, amqp091.ConnectionForced, ae.Code)
	assert.False(t, backoff.IsPermanent(refused.Err))
	t.Logf("lost: %v; then: %v", lost, refused.Err)
	b.StartApp(t)
	connected(t, st)
	_, err = pull(t, next)
	assert.ErrorIs(t, err, amqp.ErrMissed)
	d, err := pull(t, next)
	require.NoError(t, err)
	assert.True(t, d.Redelivered)
	assert.Equal(t, "a", string(d.Body))
}
