package amqp

import (
	"errors"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/supervisor"
)

// sentinels are kept in the chain of every error made safe.
var sentinels = []error{ErrMissed, ErrStaleDelivery, ErrMaybeDelivered, ErrReturned, ErrNacked, ErrBlocked, ErrCanceled, supervisor.ErrSilent,
	amqp091.ErrClosed, amqp091.ErrCredentials, amqp091.ErrVhost, amqp091.ErrSASL}

// safe returns err with every secret the connector knows masked.
func (c *connector) safe(err error) error { return safeWith(c.secrets, err) }

// classify is the first step of the supervisor's Classify, which sees
// every error of Connect, OnConnect, Watch and Invalidate: err made safe,
// then classified.
func (c *connector) classify(err error) error {
	return classify(c.safe(err), c.o.BeforeConnect != nil)
}

// safeWith returns err with tg's secrets masked in its text and in the
// broker's reply text, and a chain that keeps only what holds no secret:
// the AMQP error with its reason masked, this package's sentinels,
// amqp091's, network and context errors, and the backoff marks. Every
// error the adapter hands to the supervisor or the program passes here.
// An error whose text holds nothing to mask and no AMQP error is returned
// as it is.
func safeWith(tg *redact.Set, err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	var ae *amqp091.Error
	hasAE := errors.As(err, &ae)
	if !hasAE && tg.Text(text) == text {
		return err
	}
	keep := redact.SafeChain(err)
	if hasAE && !isSentinel(ae) {
		cp := *ae
		cp.Reason = tg.Text(cp.Reason)
		keep = append(keep, &cp)
	}
	var ce *consumeError
	if errors.As(err, &ce) {
		keep = append(keep, ce) // its Err is safe already
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			keep = append(keep, s)
		}
	}
	return tg.Error(err, keep...)
}

// isSentinel reports whether ae is one of amqp091's sentinel errors,
// which the chain keeps as they are (errors.Is compares pointers).
func isSentinel(ae *amqp091.Error) bool {
	for _, s := range sentinels {
		if ae == s {
			return true
		}
	}
	return false
}
