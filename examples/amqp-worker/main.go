// Command amqp-worker takes jobs from a RabbitMQ queue and publishes their
// results with confirms, across broker restarts: a consumer with manual
// acks (a job is acked only once its result is confirmed) and a confirmed
// publisher on one supervised connection. It says when it reconnects and
// when it retries (once per attempt, the broker's address masked), and
// exits with one line when the broker refuses it for good (a wrong
// password, a missing vhost).
//
//	go run ./examples/amqp-worker -url 'amqp://guest:guest@127.0.0.1:5672/' -produce 20
//	sudo systemctl restart rabbitmq-server   # reconnected; unacked jobs come again
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("amqp-worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", os.Getenv("AMQP_URL"), "the broker: amqp://user:password@host:5672/vhost; default $AMQP_URL")
	jobs := fs.String("jobs", "jobs", "the queue of jobs")
	results := fs.String("results", "results", "the queue of results")
	produce := fs.Int("produce", 0, "publish this many jobs first (a demo)")
	duration := fs.Duration("duration", 0, "stop after this long (0: until Ctrl-C)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *url == "" {
		fmt.Fprint(stderr, howToStart)
		return 2
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	if err := work(ctx, stdout, config{url: *url, jobs: *jobs, results: *results, produce: *produce}); err != nil {
		fmt.Fprintln(stderr, "amqp-worker:", err)
		return 1
	}
	return 0
}

const howToStart = `amqp-worker needs a RabbitMQ broker: pass -url or set AMQP_URL.
On Debian: sudo apt-get install rabbitmq-server (it starts one on 127.0.0.1:5672), then
  go run ./examples/amqp-worker -url 'amqp://guest:guest@127.0.0.1:5672/' -produce 20
`

type config struct {
	url, jobs, results string
	produce            int
}

// work runs the worker until ctx ends (nil) or the broker refuses it for
// good (the supervisor's error).
func work(ctx context.Context, w io.Writer, cfg config) error {
	c, err := amqp.New(cfg.url, amqp.Options{
		// Declared on every connection: a broker that lost them gets them back.
		Topology: func(_ context.Context, ch *amqp091.Channel) error {
			for _, q := range []string{cfg.jobs, cfg.results} {
				if _, err := ch.QueueDeclare(q, true, false, false, false, nil); err != nil {
					return err
				}
			}
			return nil
		},
		Supervisor: supervisor.Settings{Backoff: backoff.Config{Base: 200 * time.Millisecond, Cap: 5 * time.Second}},
	})
	if err != nil {
		return err
	}
	sup, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { _ = c.Run(sup) })
	wg.Go(func() { report(w, c) })
	if cfg.produce > 0 {
		wg.Go(func() { produce(sup, w, c, cfg.jobs, cfg.produce) })
	}
	// The loop waits while there is no connection and ends when ctx ends or
	// the broker refuses for good: it cannot spin.
	for d, err := range c.Deliveries(ctx, cfg.jobs) {
		if err != nil {
			fmt.Fprintf(w, "%v\n", err) // amqp.ErrMissed after a reconnect: unacked jobs come again
			continue
		}
		handle(ctx, w, c, cfg.results, d)
	}
	stop()
	<-c.Done()
	return c.Err()
}

// handle publishes the result of one job, and acks the job only once the
// result is confirmed (or may have been delivered: the results carry the
// job's id, so that their consumer drops a duplicate).
func handle(ctx context.Context, w io.Writer, c *amqp.Client, results string, d amqp.Delivery) {
	result := amqp091.Publishing{Body: []byte(strings.ToUpper(string(d.Body))), MessageId: d.MessageId, DeliveryMode: amqp091.Persistent}
	err := c.Publish(ctx, "", results, result)
	switch {
	case err == nil, errors.Is(err, amqp.ErrMaybeDelivered):
		err = d.Ack(false)
	default:
		fmt.Fprintf(w, "job %s not done: %v\n", d.MessageId, err)
		err = d.Nack(false, true)
	}
	again := ""
	if d.Redelivered {
		again = " (again)"
	}
	if err != nil {
		fmt.Fprintf(w, "job %s%s: %v\n", d.MessageId, again, err) // amqp.ErrStaleDelivery: it comes again
		return
	}
	fmt.Fprintf(w, "job %s%s done: %s\n", d.MessageId, again, result.Body)
}

// produce publishes n jobs with confirms.
func produce(ctx context.Context, w io.Writer, c *amqp.Client, jobs string, n int) {
	confirmed := 0
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("%d-%d", time.Now().UnixNano(), i)
		err := c.Publish(ctx, "", jobs, amqp091.Publishing{Body: []byte(fmt.Sprintf("job %d", i)), MessageId: id, DeliveryMode: amqp091.Persistent})
		if err != nil {
			fmt.Fprintf(w, "job %d not published: %v\n", i, err) // amqp.ErrMaybeDelivered: the program decides
			continue
		}
		confirmed++
	}
	fmt.Fprintf(w, "published %d jobs, %d confirmed\n", n, confirmed)
}

// report prints what the connection does: connected, lost, and each
// failed attempt once, with the wait before the next one.
func report(w io.Writer, c *amqp.Client) {
	ch, unsubscribe := c.Subscribe()
	defer unsubscribe()
	var last health.Status
	for st := range ch { // ends after the final Status
		if st.State == last.State && st.ConsecutiveFailures == last.ConsecutiveFailures && st.Connects == last.Connects {
			continue // the same as the last one seen
		}
		wait := st.RetryIn(time.Now()).Round(time.Millisecond)
		switch {
		case st.State == health.Connected:
			fmt.Fprintf(w, "connected to %s (#%d)\n", c.Name(), st.Connects)
		case st.State == health.Backoff && st.ConsecutiveFailures == 0:
			fmt.Fprintf(w, "lost %s, reconnecting in %v: %v\n", c.Name(), wait, st.Err)
		case st.State == health.Backoff:
			fmt.Fprintf(w, "%s unreachable, retrying in %v (attempt %d): %v\n", c.Name(), wait, st.ConsecutiveFailures, st.Err)
		}
		last = st
	}
}
