package amqp_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
)

func TestSmoke(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	c := newClient(t, b.URL(), amqp.Options{Topology: declare(q)})
	st := run(t, c)
	connected(t, st)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i := range 3 {
		require.NoError(t, c.Publish(ctx, "", q, amqp091.Publishing{Body: []byte(fmt.Sprint(i))}))
	}
	n := 0
	for d, err := range c.Deliveries(ctx, q) {
		require.NoError(t, err)
		t.Logf("%s redelivered=%v", d.Body, d.Redelivered)
		require.NoError(t, d.Ack(false))
		n++
		if n == 3 {
			break
		}
	}
	err := c.Publish(ctx, "", "nowhere-"+q, amqp091.Publishing{Body: []byte("x")})
	t.Log(err)
	require.ErrorIs(t, err, amqp.ErrReturned)
}
