package amqp_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// ledger is what the publishers and the consumer saw, by message id.
type ledger struct {
	mu          sync.Mutex
	confirmed   map[int]bool
	maybe       map[int]bool
	arrivals    map[int]int
	unmarked    map[int]int // arrivals without the Redelivered mark
	redelivered int
	missed      int // ErrMissed yielded
	missedLog   []string
	refusals    []string // errors Deliveries yielded that were not ErrMissed
	staleAcks   int      // acks that said ErrStaleDelivery
	received    chan struct{}
}

func (l *ledger) lost() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var lost []int
	for id := range l.confirmed {
		if l.arrivals[id] == 0 {
			lost = append(lost, id)
		}
	}
	return lost
}

// 10,000 persistent messages published with confirms by 8 goroutines
// while a consumer with manual acks reads them, across three broker
// restarts (SIGKILL, a clean stop, SIGKILL): every publish is either
// confirmed or says ErrMaybeDelivered, every confirmed message is received
// at least once, a message received twice is marked Redelivered the
// second time, and nothing is lost.
func TestTenThousandPublishesAcrossThreeRestarts(t *testing.T) {
	const total, publishers = 10000, 8
	b := rabbit.Get(t)
	q := "load-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	o := amqp.Options{
		Topology: func(_ context.Context, ch *amqp091.Channel) error {
			_, err := ch.QueueDeclare(q, true, false, false, false, nil)
			return err
		},
		Supervisor: supervisor.Settings{Backoff: backoff.Config{Base: 200 * time.Millisecond, Cap: 2 * time.Second}},
	}
	pub, err := amqp.New(b.URL(), o)
	require.NoError(t, err)
	cons, err := amqp.New(b.URL(), o)
	require.NoError(t, err)
	pubSt, consSt := run(t, pub), run(t, cons)
	until(t, pubSt, time.Minute, "the publisher connected", isConnected)
	until(t, consSt, time.Minute, "the consumer connected", isConnected)
	b.Sync(t) // a crash loses a queue declared in the last seconds, and its messages

	l := &ledger{confirmed: map[int]bool{}, maybe: map[int]bool{}, arrivals: map[int]int{}, unmarked: map[int]int{}, received: make(chan struct{}, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var consumerErr error
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		consumerErr = consume(ctx, cons, q, l)
	}()
	var next, done atomic.Int64
	var pubErrs sync.Map
	var wg sync.WaitGroup
	start := time.Now()
	for range publishers {
		wg.Go(func() {
			for id := int(next.Add(1) - 1); id < total; id = int(next.Add(1) - 1) {
				err := pub.Publish(ctx, "", q, amqp091.Publishing{Body: []byte(strconv.Itoa(id)), DeliveryMode: amqp091.Persistent})
				l.mu.Lock()
				switch {
				case err == nil:
					l.confirmed[id] = true
				case errors.Is(err, amqp.ErrMaybeDelivered):
					l.maybe[id] = true
				default:
					pubErrs.Store(id, err)
				}
				l.mu.Unlock()
				done.Add(1)
			}
		})
	}

	type restart struct {
		kind                   string
		at                     int64 // publishes done when it began
		down, pubBack, conBack time.Duration
	}
	var restarts []restart
	for i, kind := range []string{"SIGKILL", "clean stop (SIGTERM, 320 CONNECTION_FORCED)", "SIGKILL"} {
		threshold := int64(total * (i + 1) / 4)
		for done.Load() < threshold {
			select {
			case <-l.received: // progress
			case <-time.After(100 * time.Millisecond):
			}
		}
		r := restart{kind: kind, at: done.Load()}
		began := time.Now()
		t.Logf("%s restart %d (%s)", began.Format("15:04:05.000"), i+1, kind)
		if kind == "SIGKILL" {
			b.Kill(t)
		} else {
			b.Stop(t)
		}
		until(t, pubSt, time.Minute, "the publisher's loss", func(s health.Status) bool { return s.State != health.Connected })
		until(t, consSt, time.Minute, "the consumer's loss", func(s health.Status) bool { return s.State != health.Connected })
		b.Start(t)
		up := time.Now()
		r.down = up.Sub(began)
		until(t, pubSt, time.Minute, "the publisher back", isConnected)
		r.pubBack = time.Since(up)
		until(t, consSt, time.Minute, "the consumer back", isConnected)
		r.conBack = time.Since(up)
		restarts = append(restarts, r)
	}
	wg.Wait()
	published := time.Since(start)
	pubErrs.Range(func(id, err any) bool {
		t.Errorf("publish %v: %v", id, err)
		return true
	})

	// Wait until every confirmed message arrived (or long enough to say
	// which did not).
	deadline := time.After(2 * time.Minute)
	for len(l.lost()) > 0 {
		select {
		case <-l.received:
		case <-deadline:
			l.mu.Lock()
			for _, m := range l.missedLog {
				t.Log("DIAG missed", m)
			}
			t.Log("DIAG arrivals", len(l.arrivals), "refusals", l.refusals)
			select {
			case <-consumed:
				t.Log("DIAG the consumer's loop ended:", consumerErr)
			default:
			}
			l.mu.Unlock()
			for _, tr := range cons.History() {
				t.Log("DIAG", tr.At.Format("15:04:05.000"), tr.From, "->", tr.To, tr.Err)
			}
			t.Log("DIAG", b.Ctl(t, "list_queues", "name", "durable", "messages_ready", "messages_unacknowledged", "consumers"))
			t.Log("DIAG", b.Ctl(t, "list_consumers", "queue_name", "channel_pid", "consumer_tag", "ack_required", "prefetch_count", "active"))
			t.Log("DIAG", b.Ctl(t, "list_channels", "name", "consumer_count", "messages_unacknowledged", "prefetch_count", "confirm"))
			buf := make([]byte, 1<<20)
			t.Log("DIAG goroutines\n", string(buf[:runtime.Stack(buf, true)]))
			t.Fatalf("lost %d confirmed messages: %v", len(l.lost()), l.lost()[:min(20, len(l.lost()))])
		}
	}
	cancel()
	<-consumed
	require.NoError(t, consumerErr)

	lost := l.lost()
	l.mu.Lock()
	defer l.mu.Unlock()
	arrivals, unique, maybeArrived, unmarkedDup := 0, 0, 0, 0
	for id, n := range l.arrivals {
		arrivals += n
		unique++
		if l.maybe[id] {
			maybeArrived++
		}
		if l.unmarked[id] > 1 {
			unmarkedDup++
		}
		assert.True(t, l.confirmed[id] || l.maybe[id], "message %d arrived but was never published", id)
	}
	for _, r := range restarts {
		t.Logf("restart (%s) after %d publishes: broker down %v; publisher back %v and consumer back %v after it was up",
			r.kind, r.at, r.down.Round(time.Millisecond), r.pubBack.Round(time.Millisecond), r.conBack.Round(time.Millisecond))
	}
	t.Logf("%d publishes in %v: %d confirmed, %d ErrMaybeDelivered (%d of them arrived), 0 other errors", total, published.Round(time.Millisecond), len(l.confirmed), len(l.maybe), maybeArrived)
	t.Logf("consumer: %d deliveries of %d messages, %d duplicates, %d marked Redelivered, %d ErrMissed, %d consumes refused, %d acks ErrStaleDelivery; lost: %d",
		arrivals, unique, arrivals-unique, l.redelivered, l.missed, len(l.refusals), l.staleAcks, len(lost))
	for _, r := range l.refusals {
		t.Log("refused:", r)
	}
	assert.Equal(t, total, len(l.confirmed)+len(l.maybe), "every publish confirmed or ErrMaybeDelivered")
	assert.Empty(t, lost, "every confirmed message received")
	assert.Zero(t, unmarkedDup, "a message that comes again is marked Redelivered")
	// One ErrMissed each time the consumer is back; two restarts merge into
	// one when the consumer could not start again between them (a queue
	// its broker was still recovering refused it).
	reconnects := int(cons.Status().Connects) - 1
	if !assert.True(t, l.missed >= 1 && l.missed <= reconnects, "ErrMissed %d times over %d reconnects", l.missed, reconnects) {
		for _, m := range l.missedLog {
			t.Log(m)
		}
		for _, tr := range cons.History() {
			t.Log(tr.At.Format("15:04:05.000"), tr.From, "->", tr.To, tr.Err)
		}
	}
}

// consume reads q until ctx ends, acking each delivery, into l.
func consume(ctx context.Context, c *amqp.Client, q string, l *ledger) error {
	for d, err := range c.Deliveries(ctx, q) {
		if err != nil {
			l.mu.Lock()
			if !errors.Is(err, amqp.ErrMissed) {
				// A consume the broker refused (a queue it recovers after
				// a crash): the loop goes on, on a new connection.
				l.refusals = append(l.refusals, err.Error())
				l.mu.Unlock()
				continue
			}
			l.missed++
			l.missedLog = append(l.missedLog, time.Now().Format("15:04:05.000")+" "+err.Error())
			l.mu.Unlock()
			continue
		}
		id, err := strconv.Atoi(string(d.Body))
		if err != nil {
			return fmt.Errorf("body %q: %w", d.Body, err)
		}
		ackErr := d.Ack(false)
		l.mu.Lock()
		l.arrivals[id]++
		if d.Redelivered {
			l.redelivered++
		} else {
			l.unmarked[id]++
		}
		if errors.Is(ackErr, amqp.ErrStaleDelivery) {
			l.staleAcks++
		}
		l.mu.Unlock()
		if ackErr != nil && !errors.Is(ackErr, amqp.ErrStaleDelivery) {
			return ackErr
		}
		select {
		case l.received <- struct{}{}:
		default:
		}
	}
	return nil
}
