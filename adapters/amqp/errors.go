package amqp

import "errors"

// Errors of this package, checked with errors.Is.
var (
	// ErrMissed is wrapped by the error Deliveries yields once its
	// consumer was started again (after a reconnect, or after the broker
	// ended it): deliveries not acknowledged before come again, marked
	// Redelivered, and an Ack of one of them fails with ErrStaleDelivery.
	ErrMissed = errors.New("unacknowledged deliveries will be redelivered")
	// ErrStaleDelivery: an Ack, Nack or Reject of a delivery whose
	// channel is gone (its connection broke, or the consumer was started
	// again). The broker delivers it again, marked Redelivered.
	ErrStaleDelivery = errors.New("delivery's channel is closed: the broker will deliver it again")
	// ErrMaybeDelivered: Publish sent the message but its connection or
	// channel was lost (or its ctx ended) before the broker confirmed it.
	// It may or may not have been delivered; the library never sends it
	// again by itself: only the program knows whether that is safe.
	ErrMaybeDelivered = errors.New("message may or may not have been delivered: no confirm came")
	// ErrReturned: the broker returned the message as unroutable (no
	// queue is bound for its exchange and routing key). It was not
	// delivered.
	ErrReturned = errors.New("message returned by the broker: unroutable")
	// ErrNacked: the broker refused the message (basic.nack: an internal
	// error, a full queue with overflow reject-publish). It was not
	// delivered.
	ErrNacked = errors.New("message refused by the broker (nack)")
	// ErrBlocked is wrapped by Client.Status().Err while the broker
	// blocks the connection's publishing (connection.blocked: a memory or
	// disk alarm); Publish waits meanwhile.
	ErrBlocked = errors.New("broker blocks publishing")
	// ErrCanceled: the broker ended a consumer (basic.cancel): its queue
	// was deleted, or its node went down. Deliveries starts it again.
	ErrCanceled = errors.New("consumer canceled by the broker")
)

// errSilent is the heartbeat's failure: nothing came from the broker for
// 1.5 Heartbeats. (supervisor.ErrSilent, once the core has it.)
var errSilent = errors.New("broker silent")
