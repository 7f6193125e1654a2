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
	"github.com/redial-go/redial/health"
)

// eventually polls cond until it holds, failing t after d. For what
// nothing notifies: the broker's connection.blocked reaches Status only.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v", what, d)
		}
		<-tick.C
	}
}

// A memory alarm: the broker blocks the publishing connection. Status
// says so while it lasts, the state stays Connected, a Publish waits
// instead of sending, and once the alarm clears the message sent before
// the block is confirmed.
func TestBlockedConnection(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	c := newClient(t, b.URL(), amqp.Options{Topology: declare(q)})
	connected(t, run(t, c))
	ctx := ctxFor(t, 2*time.Minute)
	require.NoError(t, c.Publish(ctx, "", q, amqp091.Publishing{Body: []byte("before")}))

	b.Ctl(t, "set_vm_memory_high_watermark", "0.000001")
	restored := false
	restore := func() {
		if !restored {
			restored = true
			b.Ctl(t, "set_vm_memory_high_watermark", "0.4")
		}
	}
	t.Cleanup(restore)
	first := make(chan error, 1)
	go func() { first <- c.Publish(ctx, "", q, amqp091.Publishing{Body: []byte("during")}) }()
	eventually(t, time.Minute, "blocked Status", func() bool { return errors.Is(c.Status().Err, amqp.ErrBlocked) })
	st := c.Status()
	t.Logf("status while blocked: %v: %v", st.State, st.Err)
	assert.Equal(t, health.Connected, st.State)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err := c.Publish(short, "", q, amqp091.Publishing{Body: []byte("waits")})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, amqp.ErrBlocked, "it says why it waited")
	assert.NotErrorIs(t, err, amqp.ErrMaybeDelivered, "it was not sent")

	restore()
	require.NoError(t, <-first, "confirmed once unblocked")
	eventually(t, time.Minute, "unblocked Status", func() bool { return !errors.Is(c.Status().Err, amqp.ErrBlocked) })
	assert.EqualValues(t, 1, c.Status().Connects)
}
