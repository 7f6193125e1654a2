package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/rabbittest"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// benchQueues numbers the queues of the AMQP benchmarks: each run gets
// its own.
var benchQueues atomic.Int64

// amqpQueue declares a transient queue on ch that keeps at most 10,000
// messages (the oldest dropped), so that a long benchmark's memory stays
// bounded; a dropped message is still confirmed.
func amqpQueue(b *testing.B, ch *amqp091.Channel) string {
	q := fmt.Sprintf("bench-%d", benchQueues.Add(1))
	if _, err := ch.QueueDeclare(q, false, true, false, false, amqp091.Table{"x-max-length": int32(10000)}); err != nil {
		b.Fatal(err)
	}
	return q
}

// BenchmarkAMQPPublish publishes one small transient message and waits for
// its confirm, against a throwaway RabbitMQ on 127.0.0.1: raw on an
// amqp091 channel in confirm mode (PublishWithDeferredConfirm, Wait),
// redial through Client.Publish (Conn, the publisher's turn, mandatory,
// the confirm matched to the message). "parallel" publishes from
// GOMAXPROCS goroutines at once on the one connection. One op is one
// confirmed message.
func BenchmarkAMQPPublish(b *testing.B) {
	broker := rabbittest.Start(b, rabbittest.Options{})
	msg := amqp091.Publishing{Body: []byte("0123456789abcdef")}
	raw := func(b *testing.B) (*amqp091.Channel, string) {
		ch := broker.Channel(b)
		q := amqpQueue(b, ch)
		if err := ch.Confirm(false); err != nil {
			b.Fatal(err)
		}
		return ch, q
	}
	redial := func(b *testing.B) (*amqp.Client, context.Context, string) {
		q := amqpQueue(b, broker.Channel(b))
		c, err := amqp.New(broker.URL(), amqp.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := run(b, c.Run)
		if err := c.Publish(ctx, "", q, msg); err != nil { // connected, and the publisher's channel open
			b.Fatal(err)
		}
		return c, ctx, q
	}
	b.Run("raw", func(b *testing.B) {
		ch, q := raw(b)
		b.ReportAllocs()
		for b.Loop() {
			dc, err := ch.PublishWithDeferredConfirm("", q, true, false, msg)
			if err != nil || !dc.Wait() {
				b.Fatal(err)
			}
		}
	})
	b.Run("redial", func(b *testing.B) {
		c, ctx, q := redial(b)
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Publish(ctx, "", q, msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-parallel", func(b *testing.B) {
		ch, q := raw(b)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				dc, err := ch.PublishWithDeferredConfirm("", q, true, false, msg)
				if err != nil || !dc.Wait() {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("redial-parallel", func(b *testing.B) {
		c, ctx, q := redial(b)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := c.Publish(ctx, "", q, msg); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkAMQPConsume takes one delivery from a queue filled before the
// timer starts and acks it: raw from an amqp091 channel's Consume (prefetch
// 32), redial from Client.Deliveries (Prefetch 32). One op is one
// delivery, acked.
func BenchmarkAMQPConsume(b *testing.B) {
	broker := rabbittest.Start(b, rabbittest.Options{})
	fill := func(b *testing.B, q string, n int) {
		ch := broker.Channel(b)
		if err := ch.Confirm(false); err != nil {
			b.Fatal(err)
		}
		var last *amqp091.DeferredConfirmation
		for range n {
			var err error
			if last, err = ch.PublishWithDeferredConfirm("", q, false, false, amqp091.Publishing{Body: []byte("0123456789abcdef")}); err != nil {
				b.Fatal(err)
			}
		}
		if last != nil && !last.Wait() {
			b.Fatal("nacked")
		}
	}
	b.Run("raw", func(b *testing.B) {
		ch := broker.Channel(b)
		q := fmt.Sprintf("bench-%d", benchQueues.Add(1))
		if _, err := ch.QueueDeclare(q, false, true, false, false, nil); err != nil {
			b.Fatal(err)
		}
		fill(b, q, b.N)
		if err := ch.Qos(amqp.DefaultPrefetch, 0, false); err != nil {
			b.Fatal(err)
		}
		ds, err := ch.Consume(q, "", false, false, false, false, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			d := <-ds
			if err := d.Ack(false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("redial", func(b *testing.B) {
		ch := broker.Channel(b)
		q := fmt.Sprintf("bench-%d", benchQueues.Add(1))
		if _, err := ch.QueueDeclare(q, false, true, false, false, nil); err != nil {
			b.Fatal(err)
		}
		fill(b, q, b.N)
		c, err := amqp.New(broker.URL(), amqp.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := run(b, c.Run)
		testkit.WaitStatus(b, c, 30*time.Second, "connected", testkit.InState(health.Connected))
		b.ReportAllocs()
		b.ResetTimer()
		n := 0
		for d, err := range c.Deliveries(ctx, q) {
			if err != nil {
				b.Fatal(err)
			}
			if err := d.Ack(false); err != nil {
				b.Fatal(err)
			}
			if n++; n == b.N {
				break
			}
		}
	})
}
