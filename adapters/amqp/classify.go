package amqp

import (
	"errors"
	"strings"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/statuscode"
)

// Classify marks this transport's errors for the supervisor:
//
//   - backoff.Permanent: 403 ACCESS_REFUSED (amqp091's ErrCredentials too),
//     530 NOT_ALLOWED (a vhost missing or closed to the user), 406
//     PRECONDITION_FAILED (Topology disagrees with the broker);
//   - retried: 530 for a connection limit or a vhost that is down, 320
//     CONNECTION_FORCED, 404 NOT_FOUND, network errors, a silent broker.
//
// New's supervisor retries refused logins when BeforeConnect is set. An
// error already classified is returned as is; Classify(nil) is nil.
func Classify(err error) error { return classify(err, false) }

// classify is Classify; rotating says that BeforeConnect may bring new
// credentials.
func classify(err error, rotating bool) error {
	if err == nil || statuscode.Classified(err) {
		return err
	}
	var ae *amqp091.Error
	var ce *consumeError
	if !errors.As(err, &ae) || errors.As(err, &ce) {
		return err // a consumer's refusal ends only that consumer
	}
	switch ae.Code {
	case amqp091.AccessRefused:
		if !rotating {
			return backoff.Permanent(err)
		}
	case amqp091.NotAllowed:
		if !rotating && !transientNotAllowed(ae.Reason) {
			return backoff.Permanent(err)
		}
	case amqp091.PreconditionFailed:
		return backoff.Permanent(err)
	}
	return err
}

// transientNotAllowed reports whether a 530's reason (RabbitMQ's text)
// names a condition that passes: a connection limit, a vhost that is down.
func transientNotAllowed(reason string) bool {
	return strings.Contains(reason, "connection limit") || strings.Contains(reason, "is down")
}

// channelLevel reports whether an AMQP reply code closes only a channel
// (a soft error), not the connection.
func channelLevel(code int) bool {
	switch code {
	case amqp091.ContentTooLarge, amqp091.NoRoute, amqp091.NoConsumers, amqp091.AccessRefused,
		amqp091.NotFound, amqp091.ResourceLocked, amqp091.PreconditionFailed:
		return true
	}
	return false
}
