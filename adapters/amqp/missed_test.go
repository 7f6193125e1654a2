package amqp_test

import (
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/health"
)

// A connection lost while the Deliveries consumer starts (its channel.open
// unanswered: the broker frozen until the heartbeat gives up) is a break
// like any other: on the next connection the loop says ErrMissed once,
// before the first delivery.
func TestBreakBeforeTheConsumerIsUp(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	c := newClient(t, b.URL(), amqp.Options{Topology: declare(q), Heartbeat: 2 * time.Second})
	st := run(t, c)
	connected(t, st)
	ctx := ctxFor(t, time.Minute)
	if err := c.Publish(ctx, "", q, amqp091.Publishing{Body: []byte("waits in the queue")}); err != nil {
		t.Fatal(err)
	}
	thaw := freeze(t, b)
	first := make(chan error, 1)
	go func() {
		for _, err := range c.Deliveries(ctx, q) {
			first <- err
			return
		}
	}()
	until(t, st, "the loss", func(s health.Status) bool { return s.State != health.Connected })
	thaw()
	select {
	case err := <-first:
		assert.ErrorIs(t, err, amqp.ErrMissed, "the first yield")
	case <-ctx.Done():
		t.Fatal("the loop yielded nothing")
	}
}
