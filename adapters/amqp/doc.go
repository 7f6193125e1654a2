// Package amqp keeps an AMQP 0-9-1 connection (RabbitMQ, through
// github.com/rabbitmq/amqp091-go) alive under a redial supervisor, with
// amqp091's own recovery off.
//
// New(url, Options) returns a *Client, the supervisor of an
// *amqp091.Connection: every connection runs Options.Topology before it
// counts as connected, is watched with
// AMQP heartbeats, and is replaced with backoff when it breaks.
//
//	c, err := amqp.New("amqp://app:secret@rabbit:5672/orders", amqp.Options{Topology: declare})
//	...
//	go c.Run(ctx)
//	for d, err := range c.Deliveries(ctx, "jobs") {
//		if err != nil {
//			log.Print(err) // amqp.ErrMissed after a reconnect, supervisor.ErrSwitched after a Replace
//			continue
//		}
//		handle(d.Body)
//		_ = d.Ack(false)
//	}
//
// Deliveries consumes with manual acks: after a reconnect unacked
// deliveries come again, marked Redelivered, and the old delivery's ack
// says ErrStaleDelivery. Publish returns nil only for a confirmed message,
// and never sends one twice: ErrMaybeDelivered is the program's to decide.
//
// What each failure looks like:
//
//   - A broker that restarts or crashes: the connection is lost (320
//     CONNECTION_FORCED for a clean shutdown) and attempts are retried. A
//     crashed RabbitMQ 3.x forgets queues declared in its last seconds,
//     confirmed messages included; Topology declares them again, empty.
//   - A silent path or a frozen broker: given up after 1.5 Heartbeats
//     without a frame, 15s with the defaults, the error wrapping
//     supervisor.ErrSilent; an attempt on a stalled path ends at
//     Supervisor.ConnectTimeout, Topology included.
//   - A memory or disk alarm (connection.blocked): the state stays
//     Connected, Client.Status().Err and Degraded wrap ErrBlocked, Publish
//     waits; a critical Client in a health.Registry is not ready (still
//     live) until the alarm clears.
//   - A refused login (403) or a missing vhost (530): Failed, unless
//     BeforeConnect may bring new credentials. RabbitMQ refuses a password
//     by closing the socket, which looks like a broker going down, so
//     that one is final at the second refusal in a row.
//   - Topology redeclaring a queue with other arguments (406): Failed.
//   - A consumer whose queue is deleted or refused: the loop is told, the
//     queue named, and the connection replaced so that Topology runs
//     again; the supervisor never gives up over it.
//
// No error, Status, log line or page shows the url's user name or
// password, also in what the broker sent back.
package amqp
