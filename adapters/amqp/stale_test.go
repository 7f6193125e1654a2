package amqp_test

import (
	"errors"
	"net"
	"syscall"
	"testing"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/adapters/amqp"
)

// acker answers every ack, nack and reject with err.
type acker struct{ err error }

func (a acker) Ack(uint64, bool) error        { return a.err }
func (a acker) Nack(uint64, bool, bool) error { return a.err }
func (a acker) Reject(uint64, bool) error     { return a.err }

// An ack that fails never reached the broker: on a closed channel
// (ErrClosed) and on a socket the broker has just reset, while amqp091's
// shutdown of the connection has not run yet (the raw write error; a
// consumer got it at the broker's clean stop, and took it for a failure).
func TestFailedAcksAreStale(t *testing.T) {
	reset := &net.OpError{Op: "write", Net: "tcp", Err: syscall.ECONNRESET}
	for _, err := range []error{amqp091.ErrClosed, reset} {
		d := amqp.Delivery{Delivery: amqp091.Delivery{Acknowledger: acker{err}, DeliveryTag: 7}}
		for op, got := range map[string]error{"ack": d.Ack(false), "nack": d.Nack(false, true), "reject": d.Reject(true)} {
			assert.ErrorIs(t, got, amqp.ErrStaleDelivery, "%s: %v", op, err)
			assert.ErrorContains(t, got, op+" of delivery 7")
		}
	}
	assert.NoError(t, amqp.Delivery{Delivery: amqp091.Delivery{Acknowledger: acker{}}}.Ack(false))
	assert.True(t, errors.Is(amqp.Delivery{Delivery: amqp091.Delivery{Acknowledger: acker{reset}}}.Ack(false), syscall.ECONNRESET), "the cause stays in the chain")
}
