package amqp

import "errors"

// Errors of this package, checked with errors.Is.
var (
	// ErrMissed: Deliveries started its consumer again (a reconnect, or
	// the broker ended it); unacked deliveries come again, Redelivered.
	ErrMissed = errors.New("unacknowledged deliveries will be redelivered")
	// ErrStaleDelivery: an Ack, Nack or Reject of a delivery whose
	// channel is gone; the broker delivers it again.
	ErrStaleDelivery = errors.New("delivery's channel is closed: the broker will deliver it again")
	// ErrMaybeDelivered: the connection or channel was lost, or ctx ended,
	// between the send and the confirm. Never sent again by the library.
	ErrMaybeDelivered = errors.New("message may or may not have been delivered: no confirm came")
	// ErrReturned: unroutable (no queue bound for it); not delivered.
	ErrReturned = errors.New("message returned by the broker: unroutable")
	// ErrNacked: the broker refused it (basic.nack); not delivered.
	ErrNacked = errors.New("message refused by the broker (nack)")
	// ErrBlocked: Client.Status().Err while the broker blocks publishing
	// (connection.blocked); Publish waits meanwhile.
	ErrBlocked = errors.New("broker blocks publishing")
	// ErrCanceled: the broker ended a consumer (its queue deleted).
	ErrCanceled = errors.New("consumer canceled by the broker")
)
