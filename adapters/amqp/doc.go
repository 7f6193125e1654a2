// Package amqp keeps an AMQP 0-9-1 connection (RabbitMQ, through
// github.com/rabbitmq/amqp091-go) alive under a redial supervisor, with
// amqp091's own recovery off: the supervisor's jittered backoff, failover
// across cluster nodes, per-attempt credentials and health replace its
// fixed 5-second retries.
//
// New(url, Options) returns a *Client, the supervisor of the
// *amqp091.Connection: every connection runs Options.Topology (the
// program's exchanges, queues and bindings) and Supervisor.OnConnect
// before it counts as connected, is watched with AMQP heartbeats, and is
// replaced with backoff when it breaks.
//
//	c, err := amqp.New("amqp://app:secret@rabbit:5672/orders", amqp.Options{Topology: declare})
//	...
//	go c.Run(ctx)
//	for d, err := range c.Deliveries(ctx, "jobs") {
//		if err != nil {
//			log.Print(err) // amqp.ErrMissed after a reconnect: unacked deliveries come again
//			continue
//		}
//		handle(d.Body)
//		_ = d.Ack(false)
//	}
//
// # Consuming
//
// Deliveries consumes a queue with manual acks and a prefetch
// (Options.Prefetch). While there is no connection it waits. After every
// reconnect it starts the consumer again and yields one error wrapping
// ErrMissed: what was delivered and not acked comes again, marked
// Redelivered, and an ack of the old delivery fails with ErrStaleDelivery —
// never a panic, never a silent success. Handle deliveries idempotently: a
// nil from Ack means the ack was sent, not that the broker got it.
//
// A queue that is deleted while consumed (the broker cancels the consumer)
// or refused (404, 403, 406) is reported to the loop with the queue named;
// the connection is then replaced, so that Topology declares the queue
// again. A consumer refusal never makes the supervisor give up.
//
// # Publishing
//
// Publish uses one channel per connection in confirm mode, and sends every
// message mandatory. It returns nil only once the broker confirmed the
// message. Otherwise: ErrReturned (unroutable), ErrNacked (refused), or
// ErrMaybeDelivered when the connection was lost (or ctx ended) between
// the send and the confirm. The library never sends a message twice: only
// the program knows what is idempotent. A message that could not be sent
// at all waits for the next connection.
//
// # What each failure looks like
//
//   - The broker restarts or crashes: the connection is lost (320
//     CONNECTION_FORCED for a clean shutdown, a reset or EOF for a crash)
//     and the supervisor reconnects; attempts meanwhile are refused and
//     retried with backoff.
//   - The path or the broker goes silent (a dead NAT entry, a frozen
//     node): the heartbeat gives up after 1.5 Heartbeats without a frame,
//     15s with the default 10s; an attempt on a stalled path fails at
//     Supervisor.ConnectTimeout (10s by default), Topology included.
//   - A memory or disk alarm (connection.blocked): the connection stays
//     Connected — consumers go on — while Client.Status().Err says the
//     broker blocks publishing (ErrBlocked) and Publish waits. Readiness
//     (health's probes) looks at the state only, so it stays ready.
//   - A wrong password (403 ACCESS_REFUSED, amqp091.ErrCredentials) or a
//     vhost that is missing or closed to the user (530 NOT_ALLOWED): the
//     supervisor gives up (Failed), unless BeforeConnect may bring new
//     credentials. The broker refuses a password by closing the socket,
//     which looks like a broker going down, so that one is given up on at
//     the second refusal in a row. A 530 for a connection limit is
//     retried.
//   - Topology declares a queue the broker has with other arguments (406
//     PRECONDITION_FAILED): Failed; a missing exchange to bind to (404):
//     retried.
//
// See Classify. Every error, Status, log line and page shows the url's
// user name and password masked, also in what the broker sent back.
package amqp
