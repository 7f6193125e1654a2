package amqp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// A queue deleted under its consumer: the loop hears the cancel and the
// 404 with the queue named, the connection is replaced so that Topology
// declares the queue again, and the consumer goes on.
func TestDeletedQueueIsDeclaredAgain(t *testing.T) {
	b := rabbit.Get(t)
	f := startConsuming(t, b, 2*time.Minute)
	c, ctx, q, next := f.c, f.ctx, f.q, f.next
	f.roundTrip(t, "before")

	_, err := b.Channel(t).QueueDelete(q, false, false, false)
	require.NoError(t, err)
	_, err = pull(t, next)
	var ae *amqp091.Error
	require.ErrorAs(t, err, &ae, "the consume on the same connection is refused: %v", err)
	assert.Equal(t, amqp091.NotFound, ae.Code)
	assert.Contains(t, err.Error(), `queue "`+q+`"`)
	_, err = pull(t, next)
	require.ErrorIs(t, err, amqp.ErrMissed, "the consumer is back, on a new connection")
	assert.ErrorIs(t, err, amqp.ErrCanceled, "it says the broker ended the first one")
	require.NoError(t, c.Publish(ctx, "", q, persistent("after")))
	d, err := pull(t, next)
	require.NoError(t, err)
	assert.Equal(t, "after", string(d.Body))
	assert.EqualValues(t, 2, c.Status().Connects)
	assert.Nil(t, c.Err(), "a consumer's refusal never ends the supervisor")
}

// A queue nobody declares: every consume is refused, the loop says so
// each time with the queue named, the connection is replaced, and the
// supervisor never gives up.
func TestMissingQueueNeverEndsTheSupervisor(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	c := newClient(t, b.URL(), amqp.Options{})
	run(t, c)
	ctx := ctxFor(t, time.Minute)
	refusals := 0
	for _, err := range c.Deliveries(ctx, q) {
		var ae *amqp091.Error
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, amqp091.NotFound, ae.Code)
		if refusals++; refusals == 3 {
			break
		}
	}
	st := c.Status()
	assert.False(t, backoff.IsPermanent(st.Err), "%v", st.Err)
	assert.Contains(t, st.Err.Error(), `queue "`+q+`"`)
	assert.Nil(t, c.Err())
}

// Topology redeclares a queue with other arguments: 406
// PRECONDITION_FAILED, which only a change fixes: the supervisor gives up,
// saying which queue.
func TestRedeclaredQueueGivesUp(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	_, err := b.Channel(t).QueueDeclare(q, true, false, false, false, amqp091.Table{"x-max-length": int32(10)})
	require.NoError(t, err)
	c := newClient(t, b.URL(), amqp.Options{Topology: declare(q)})
	run(t, c)
	err = finished(t, c, time.Minute)
	require.ErrorIs(t, err, supervisor.ErrFailed)
	var ae *amqp091.Error
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, amqp091.PreconditionFailed, ae.Code)
	assert.Contains(t, err.Error(), "topology")
	assert.Contains(t, err.Error(), "'"+q+"'", "the broker's text names the queue")
}

// A channel exception in Do's function (a passive declare of a missing
// queue) closes its channel, not the connection.
func TestDoKeepsTheConnectionOnAChannelException(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	c := newClient(t, b.URL(), amqp.Options{Topology: declare(q)})
	connected(t, run(t, c))
	ctx := ctxFor(t, time.Minute)
	err := c.Sup().Do(ctx, func(ctx context.Context, conn *amqp091.Connection) error {
		ch, err := conn.Channel()
		if err != nil {
			return err
		}
		_, err = ch.QueueDeclarePassive(queueName(t), false, false, false, false, nil)
		return err
	})
	var ae *amqp091.Error
	require.True(t, errors.As(err, &ae), "%v", err)
	assert.Equal(t, amqp091.NotFound, ae.Code)
	require.NoError(t, c.Publish(ctx, "", q, amqp091.Publishing{}), "the connection is still the first")
	assert.EqualValues(t, 1, c.Status().Connects)
}

// A queue that refuses more (max-length 0, overflow reject-publish): the
// broker nacks.
func TestNackedPublish(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	c := newClient(t, b.URL(), amqp.Options{Topology: func(_ context.Context, ch *amqp091.Channel) error {
		_, err := ch.QueueDeclare(q, false, true, false, false, amqp091.Table{"x-max-length": int32(0), "x-overflow": "reject-publish"})
		return err
	}})
	connected(t, run(t, c))
	err := c.Publish(ctxFor(t, time.Minute), "", q, amqp091.Publishing{Body: []byte("x")})
	assert.ErrorIs(t, err, amqp.ErrNacked)
	assert.NotErrorIs(t, err, amqp.ErrMaybeDelivered)
}

// Returned messages are told apart from confirmed ones when both are in
// flight at once.
func TestReturnedAmongConfirmed(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	c := newClient(t, b.URL(), amqp.Options{Topology: declare(q)})
	connected(t, run(t, c))
	ctx := ctxFor(t, time.Minute)
	errs := make(chan error, 200)
	for i := range 200 {
		go func() {
			key := q
			if i%2 == 1 {
				key = "nowhere"
			}
			errs <- c.Publish(ctx, "", key, amqp091.Publishing{Body: []byte{byte(i)}})
		}()
	}
	confirmed, returned := 0, 0
	for range 200 {
		err := <-errs
		switch {
		case err == nil:
			confirmed++
		case errors.Is(err, amqp.ErrReturned):
			returned++
		default:
			t.Errorf("unexpected: %v", err)
		}
	}
	assert.Equal(t, 100, confirmed)
	assert.Equal(t, 100, returned)
}

// A consumer refused with 403 (the queue is in exclusive use elsewhere):
// the loop says so, the queue named, and the supervisor never gives up —
// a consumer's 403 is not a refused login.
func TestExclusiveQueueRefusalNeverEndsTheSupervisor(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	other := b.Channel(t)
	_, err := other.QueueDeclare(q, false, true, false, false, nil)
	require.NoError(t, err)
	_, err = other.Consume(q, "other", false, true, false, false, nil)
	require.NoError(t, err)
	c := newClient(t, b.URL(), amqp.Options{})
	run(t, c)
	refusals := 0
	for _, err := range c.Deliveries(ctxFor(t, time.Minute), q) {
		var ae *amqp091.Error
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, amqp091.AccessRefused, ae.Code)
		assert.Contains(t, err.Error(), `queue "`+q+`"`)
		if refusals++; refusals == 2 {
			break
		}
	}
	assert.Nil(t, c.Err())
	assert.False(t, backoff.IsPermanent(c.Status().Err), "%v", c.Status().Err)
}
