package amqp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

// Delivery is amqp091's, with Ack, Nack and Reject that say
// ErrStaleDelivery when its channel is gone.
type Delivery struct {
	amqp091.Delivery
}

// Ack acknowledges the delivery (with multiple, every earlier one of its
// channel). nil means sent, not received: a delivery may still come again,
// Redelivered.
func (d Delivery) Ack(multiple bool) error { return d.stale("ack", d.Delivery.Ack(multiple)) }

// Nack rejects the delivery (with multiple, the earlier ones too), requeued
// or dead-lettered as requeue says.
func (d Delivery) Nack(multiple, requeue bool) error {
	return d.stale("nack", d.Delivery.Nack(multiple, requeue))
}

// Reject rejects the delivery, requeued or dead-lettered.
func (d Delivery) Reject(requeue bool) error { return d.stale("reject", d.Delivery.Reject(requeue)) }

// stale says why an ack, nack or reject failed. amqp091 sends them without
// waiting for an answer, so any error means the delivery's connection is
// closed (ErrClosed) or breaking (the socket's write error, while the
// connection's shutdown runs): the broker never got it.
func (d Delivery) stale(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, amqp091.ErrClosed) {
		return fmt.Errorf("amqp: %s of delivery %d: %w", op, d.DeliveryTag, ErrStaleDelivery)
	}
	return fmt.Errorf("amqp: %s of delivery %d: %w: %w", op, d.DeliveryTag, ErrStaleDelivery, err)
}

// consumeError is a consumer's refusal, its queue named, its cause safe.
// Classify leaves it alone: it costs the connection, never the supervisor.
type consumeError struct {
	queue string
	err   error
}

func (e *consumeError) Error() string { return fmt.Sprintf("queue %q: %v", e.queue, e.err) }
func (e *consumeError) Unwrap() error { return e.err }

// Deliveries consumes queue with manual acks (Options.Prefetch at a time)
// and yields each delivery, waiting while there is no connection. Each
// time its consumer was started again (a reconnect; the broker ended it),
// it yields one error wrapping ErrMissed first.
//
// A consume the broker refuses (404 no queue, 403, 406) is yielded, the
// queue named (errors.As finds the *amqp091.Error), and costs the
// connection, so that Topology runs again; never the supervisor.
//
// On a replacement (Replace, MaxConnectionAge) the consumer is cancelled
// (basic.cancel) as soon as the new connection is live: the deliveries
// already received are yielded and acked on the old channel, then one
// error wrapping supervisor.ErrSwitched, not ErrMissed, comes before the
// new connection's deliveries.
//
// The loop ends when ctx ends or the supervisor stops or gives up; it
// never spins. Ending it closes the consumer's channel: what was not
// acked is requeued. Drain cancels the consumer (basic.cancel), yields
// the deliveries already received, then ends the loop; the connection
// closes once every loop has ended. A queue "" yields an ErrInvalidOptions error.
func (c *Client) Deliveries(ctx context.Context, queue string) iter.Seq2[Delivery, error] {
	return func(yield func(Delivery, error) bool) {
		if queue == "" {
			yield(Delivery{}, opterr.New(pkg, "queue", nil, "empty (the default queue name means the last one declared on the channel)"))
			return
		}
		var missed error // why the consumer was started again (or switched), once the new one is up
		for {
			conn, release, err := c.sup.Acquire(ctx) // held: Drain waits for the consumer's end
			if err != nil {
				return
			}
			more := c.consumeOn(ctx, conn, queue, &missed, yield)
			release()
			if !more {
				return
			}
		}
	}
}

// consumeOn runs a consumer of queue on conn until it ends, and reports
// whether the loop goes on to the next connection.
func (c *Client) consumeOn(ctx context.Context, conn *amqp091.Connection, queue string, missed *error, yield func(Delivery, error) bool) bool {
	l := c.c.linkOf(conn)
	if l == nil {
		return true // closed since Acquire: it is handed out no more
	}
	k, err := c.consume(conn, queue)
	if err != nil && l.conn.IsClosed() {
		// Lost before the consumer was up, or while it started
		// (deliveries sent to it are requeued): said once, as a break.
		*missed = c.missed(queue, cmp.Or(c.gone(ctx, l), err))
		return true
	}
	if err != nil {
		return c.refused(ctx, l, queue, err, yield)
	}
	if *missed != nil && !yield(Delivery{}, *missed) {
		k.close()
		return false
	}
	stop := c.watchConsumer(k, conn)
	more := k.run(ctx, yield)
	stop() // the watch's cancel, if any, is over: its flags are final
	k.close()
	switch {
	case !more || k.cancelled.Load():
		return false
	case k.switched.Load():
		*missed = fmt.Errorf("amqp: queue %q: consumer moved to the new connection: %w", queue, supervisor.ErrSwitched)
		return true
	}
	why := k.why()
	if reason := c.gone(ctx, l); reason != nil {
		why = reason // the connection's: the channel's says less
	}
	*missed = c.missed(queue, why)
	return true
}

// missed is the error a Deliveries loop yields first on its next consumer.
func (c *Client) missed(queue string, why error) error {
	return fmt.Errorf("amqp: queue %q: consumer started again after: %w: %w", queue, c.c.safe(why), ErrMissed)
}

// refused handles a consume that failed on a live connection: it yields
// the refusal and invalidates it. It reports whether the loop goes on.
func (c *Client) refused(ctx context.Context, l *link, queue string, err error, yield func(Delivery, error) bool) bool {
	if ctx.Err() != nil {
		return false
	}
	ce := &consumeError{queue: queue, err: c.c.safe(err)}
	c.sup.Invalidate(l.conn, ce)
	return yield(Delivery{}, fmt.Errorf("amqp: %w", ce))
}

// gone makes sure that Conn hands out l's connection no more once it is
// closed: it
// waits until the watch saw why, invalidates it with that reason, and
// returns it; nil when l's connection is not closed.
func (c *Client) gone(ctx context.Context, l *link) error {
	if !l.conn.IsClosed() {
		return nil
	}
	select {
	case <-l.dead:
		c.sup.Invalidate(l.conn, l.reason)
		return l.reason
	case <-ctx.Done():
		return nil
	}
}

// consumer is one Deliveries loop's channel on one connection.
type consumer struct {
	ch         *amqp091.Channel
	tag        string
	deliveries <-chan amqp091.Delivery
	closes     chan *amqp091.Error
	cancels    chan string
	cancelled  atomic.Bool // by a drain
	switched   atomic.Bool // by a replacement, its cancel answered
}

// consume starts a consumer of queue on conn.
func (c *Client) consume(conn *amqp091.Connection, queue string) (*consumer, error) {
	ch, err := conn.Channel()
	if err != nil {
		return nil, err
	}
	if err := ch.Qos(c.c.o.Prefetch, 0, false); err != nil {
		_ = ch.Close()
		return nil, err
	}
	k := &consumer{ch: ch, tag: fmt.Sprintf("redial-%d", consumers.Add(1)), closes: ch.NotifyClose(make(chan *amqp091.Error, 1)), cancels: ch.NotifyCancel(make(chan string, 1))}
	if k.deliveries, err = ch.Consume(queue, k.tag, false, false, false, false, nil); err != nil {
		_ = ch.Close()
		return nil, err
	}
	return k, nil
}

// consumers numbers the consumer tags, which Cancel needs.
var consumers atomic.Uint64

// watchConsumer cancels k (basic.cancel) at once, even while the program
// handles a delivery: on a drain, or once the supervisor hands out a new
// connection while conn is still open (a replacement). stop ends the
// watch, a cancel under way included.
func (c *Client) watchConsumer(k *consumer, conn *amqp091.Connection) (stop func()) {
	done := make(chan struct{})
	over := make(chan struct{})
	go func() {
		defer close(over)
		states, unsubscribe := c.sup.Subscribe()
		defer unsubscribe()
		for {
			select {
			case <-c.draining:
				k.cancelled.Store(true)
				_ = k.ch.Cancel(k.tag, false) // an error: the channel is gone, its unacked deliveries requeued
				return
			case _, ok := <-states:
				if ok && !c.replaced(conn) {
					continue
				}
				if ok && k.ch.Cancel(k.tag, false) == nil { // answered: the old channel still acks
					k.switched.Store(true)
				}
				return
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); <-over }
}

// replaced reports whether the supervisor hands out a connection other
// than conn.
func (c *Client) replaced(conn *amqp091.Connection) bool {
	now, cancel := context.WithCancel(context.Background())
	cancel() // no waiting: the live connection or nothing
	live, err := c.sup.Conn(now)
	return err == nil && live != conn
}

// run yields the consumer's deliveries until they end (true) or the
// program's loop does (false).
func (k *consumer) run(ctx context.Context, yield func(Delivery, error) bool) bool {
	for {
		select {
		case d, ok := <-k.deliveries:
			if !ok {
				return true
			}
			if !yield(Delivery{d}, nil) {
				return false
			}
		case <-ctx.Done():
			return false
		}
	}
}

// why says why the deliveries ended; amqp091 notifies before closing them.
func (k *consumer) why() error {
	select {
	case e, ok := <-k.closes:
		if ok && e != nil {
			return e
		}
	default:
	}
	select {
	case <-k.cancels:
		return fmt.Errorf("%w (its queue deleted?)", ErrCanceled)
	default:
	}
	return errors.New("channel closed")
}

// close closes the consumer's channel: unacked deliveries are requeued.
func (k *consumer) close() { _ = k.ch.Close() }
