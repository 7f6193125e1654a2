package amqp

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	amqp091 "github.com/rabbitmq/amqp091-go"
)

// Publish sends msg, mandatory, on the connection's channel in confirm
// mode and returns nil only once the broker confirmed it; otherwise an
// error wrapping ErrReturned (unroutable), ErrNacked, or ErrMaybeDelivered
// (the connection or channel lost, or ctx ended, before the confirm).
// It waits while there is no connection and while the broker blocks
// publishing; a message not sent at all goes on the next connection, but
// one that was sent is never sent again. It is safe for concurrent use:
// sends go one at a time, confirms are awaited together.
func (c *Client) Publish(ctx context.Context, exchange, key string, msg amqp091.Publishing) error {
	if err := msg.Headers.Validate(); err != nil {
		return fmt.Errorf("amqp: publish: %w", err)
	}
	for {
		conn, release, err := c.sup.Acquire(ctx) // held: Drain waits for the confirm
		if err != nil {
			return fmt.Errorf("amqp: publish: not sent: %w", err)
		}
		done, err := c.publishOn(ctx, conn, exchange, key, msg)
		release()
		if done {
			return err
		}
	}
}

// publishOn publishes msg on conn; done is false when it was not sent and
// the next connection is to be tried.
func (c *Client) publishOn(ctx context.Context, conn *amqp091.Connection, exchange, key string, msg amqp091.Publishing) (done bool, _ error) {
	l := c.c.linkOf(conn)
	if l == nil {
		return false, nil // closed between Acquire and now: it is handed out no more
	}
	if b := l.blocked.Load(); b != nil {
		select {
		case <-b.over:
		case <-ctx.Done():
			return true, fmt.Errorf("amqp: publish: not sent: %w while %w", ctx.Err(), b.err)
		}
	}
	p, err := l.publisher()
	if err == nil {
		var w *waiter
		if w, err = p.publish(ctx, exchange, key, msg); err == nil {
			return true, c.c.safe(w.wait(ctx))
		}
		if errors.Is(err, ErrMaybeDelivered) {
			return true, c.c.safe(err)
		}
		if !errors.Is(err, errNotSent) {
			return true, c.c.safe(fmt.Errorf("amqp: publish: not sent: %w", err))
		}
		l.dropPublisher(p) // its channel closed: the next turn opens another
	}
	if !conn.IsClosed() {
		if p == nil { // no channel on a live connection (channel_max reached, say)
			return true, c.c.safe(fmt.Errorf("amqp: publish: not sent: %w", err))
		}
		return false, nil
	}
	c.gone(ctx, l) // Conn hands out the next one
	if ctx.Err() != nil {
		return true, fmt.Errorf("amqp: publish: not sent: %w", ctx.Err())
	}
	return false, nil
}

// errNotSent is wrapped by a publish that sent nothing: its channel was
// closed.
var errNotSent = errors.New("not sent")

// publisher is a channel in confirm mode and its unconfirmed messages.
type publisher struct {
	ch       *amqp091.Channel
	turn     chan struct{} // capacity 1: who holds it sends (delivery tags follow the order of sends)
	confirms chan amqp091.Confirmation
	returns  chan amqp091.Return
	closes   chan *amqp091.Error
	done     chan struct{} // closed when the confirm loop ended: every waiter has its answer

	mu      chan struct{} // capacity 1: guards pending
	pending map[uint64]*waiter
}

// waiter is one sent message waiting for its confirm.
type waiter struct {
	exchange, key string
	msg           *amqp091.Publishing
	returned      *amqp091.Return
	done          chan struct{}
	err           error // set before done is closed
}

// publisher returns the link's publisher, opened on first use or after
// its channel closed.
func (l *link) publisher() (*publisher, error) {
	l.pubMu.Lock()
	defer l.pubMu.Unlock()
	if l.pub != nil && !l.pub.ch.IsClosed() {
		return l.pub, nil
	}
	ch, err := l.conn.Channel()
	if err != nil {
		return nil, fmt.Errorf("open a channel: %w", err)
	}
	if err := ch.Confirm(false); err != nil {
		_ = ch.Close()
		return nil, fmt.Errorf("confirm mode: %w", err)
	}
	p := &publisher{ch: ch, turn: make(chan struct{}, 1), mu: make(chan struct{}, 1), pending: map[uint64]*waiter{},
		done: make(chan struct{})}
	// Buffered, so that amqp091's reader never waits on the loop; a
	// return comes before its message's confirm, and the loop takes the
	// returns waiting before every confirm (see run).
	p.confirms = ch.NotifyPublish(make(chan amqp091.Confirmation, 256))
	p.returns = ch.NotifyReturn(make(chan amqp091.Return, 64))
	p.closes = ch.NotifyClose(make(chan *amqp091.Error, 1))
	go p.run(l)
	l.pub = p
	return p, nil
}

// dropPublisher forgets p if it is still the link's publisher.
func (l *link) dropPublisher(p *publisher) {
	l.pubMu.Lock()
	if l.pub == p {
		l.pub = nil
	}
	l.pubMu.Unlock()
}

// publish sends msg and returns its waiter; an error wrapping errNotSent
// when the channel was closed before, ErrMaybeDelivered when a write failed.
func (p *publisher) publish(ctx context.Context, exchange, key string, msg amqp091.Publishing) (*waiter, error) {
	select {
	case p.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.turn }()
	w := &waiter{exchange: exchange, key: key, msg: &msg, done: make(chan struct{})}
	p.mu <- struct{}{}
	tag := p.ch.GetNextPublishSeqNo()
	p.pending[tag] = w
	<-p.mu
	if err := p.ch.Publish(exchange, key, true, false, msg); err != nil {
		p.mu <- struct{}{}
		delete(p.pending, tag)
		<-p.mu
		if errors.Is(err, amqp091.ErrClosed) { // said before a byte was written
			return nil, fmt.Errorf("%w: %w", errNotSent, err)
		}
		// A write failed: some of the message may have reached the broker.
		return nil, fmt.Errorf("amqp: publish to %q with key %q: %w: %w", exchange, key, ErrMaybeDelivered, err)
	}
	return w, nil
}

// run answers the waiters: each confirm its message's, and, when the
// channel closes, every one left with ErrMaybeDelivered.
func (p *publisher) run(l *link) {
	defer close(p.done)
	for {
		select {
		case r, ok := <-p.returns:
			if ok {
				p.returned(r)
			} else {
				p.returns = nil
			}
		case cf, ok := <-p.confirms:
			if !ok {
				p.closed(l)
				return
			}
			p.drainReturns() // a message's return came before its confirm
			p.confirmed(l, cf)
		}
	}
}

func (p *publisher) drainReturns() {
	for {
		select {
		case r, ok := <-p.returns:
			if !ok {
				p.returns = nil
				return
			}
			p.returned(r)
		default:
			return
		}
	}
}

// returned marks the oldest waiter r is a copy of (a return has no tag).
func (p *publisher) returned(r amqp091.Return) {
	p.mu <- struct{}{}
	defer func() { <-p.mu }()
	var oldest uint64
	for tag, w := range p.pending {
		if w.returned == nil && (oldest == 0 || tag < oldest) && w.is(r) {
			oldest = tag
		}
	}
	if w := p.pending[oldest]; w != nil {
		w.returned = &r
	}
}

func (w *waiter) is(r amqp091.Return) bool {
	return w.exchange == r.Exchange && w.key == r.RoutingKey && w.msg.MessageId == r.MessageId &&
		w.msg.CorrelationId == r.CorrelationId && bytes.Equal(w.msg.Body, r.Body)
}

func (p *publisher) confirmed(l *link, cf amqp091.Confirmation) {
	p.mu <- struct{}{}
	w := p.pending[cf.DeliveryTag]
	delete(p.pending, cf.DeliveryTag)
	<-p.mu
	if w == nil {
		return
	}
	switch {
	case !cf.Ack:
		w.err = fmt.Errorf("amqp: publish to %q with key %q: %w", w.exchange, w.key, ErrNacked)
	case w.returned != nil:
		w.err = fmt.Errorf("amqp: publish to %q with key %q: %w: %d %s", w.exchange, w.key, ErrReturned,
			w.returned.ReplyCode, l.c.secrets.Text(w.returned.ReplyText))
	}
	w.msg = nil
	close(w.done)
}

// closed answers every waiter left: ErrMaybeDelivered.
func (p *publisher) closed(l *link) {
	why := "the connection closed"
	select {
	case e, ok := <-p.closes:
		if ok && e != nil {
			why = l.c.safe(e).Error()
		}
	default:
	}
	p.mu <- struct{}{}
	defer func() { <-p.mu }()
	for tag, w := range p.pending {
		delete(p.pending, tag)
		w.err = fmt.Errorf("amqp: publish to %q with key %q: %w (%s)", w.exchange, w.key, ErrMaybeDelivered, why)
		w.msg = nil
		close(w.done)
	}
}

// wait waits for w's answer, or for ctx's end (ErrMaybeDelivered).
func (w *waiter) wait(ctx context.Context) error {
	select {
	case <-w.done:
		return w.err
	case <-ctx.Done():
		return fmt.Errorf("amqp: publish to %q with key %q: %w: %w", w.exchange, w.key, ErrMaybeDelivered, ctx.Err())
	}
}
