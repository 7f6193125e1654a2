package amqp

import (
	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/supervisor"
)

// Sup returns the supervisor under c: the tests of the adapter's rules
// reach what a program cannot.
func (c *Client) Sup() *supervisor.Supervisor[*amqp091.Connection] { return c.sup }
