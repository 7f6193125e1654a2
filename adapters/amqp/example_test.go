package amqp_test

import (
	"context"
	"errors"
	"log"
	"net/http"
	"net/url"
	"os"
	"os/signal"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
	"github.com/redial-go/redial/supervisor"
)

// A worker that takes jobs from a queue and publishes their results,
// across broker restarts, with a readiness probe that tells the truth
// about the broker. (It needs a broker, so it is compiled but not run.)
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c, err := amqp.New(os.Getenv("AMQP_URL"), amqp.Options{ // amqp://app:secret@rabbit:5672/%2F
		// Declared on every connection: a broker that lost them (a node
		// restarted without its data) gets them back.
		Topology: func(ctx context.Context, ch *amqp091.Channel) error {
			if _, err := ch.QueueDeclare("jobs", true, false, false, false, nil); err != nil {
				return err
			}
			_, err := ch.QueueDeclare("results", true, false, false, false, nil)
			return err
		},
		Supervisor: supervisor.Settings{Name: "rabbit"},
	})
	if err != nil {
		log.Fatal(err) // names the bad option; never shows the password
	}
	var reg health.Registry
	reg.Add("rabbit", c, health.SourceOptions{Critical: true}) // not ready while the broker is away
	http.Handle("/readyz", healthhttp.ReadyHandler(&reg))
	go http.ListenAndServe(":8080", nil)
	go c.Run(ctx)

	for d, err := range c.Deliveries(ctx, "jobs") { // ends when ctx ends or c gives up
		if errors.Is(err, amqp.ErrMissed) {
			log.Print(err) // reconnected: unacked jobs come again, marked Redelivered
			continue
		}
		if err != nil {
			log.Print(err) // the queue is gone or refused: the connection is replaced
			continue
		}
		err := c.Publish(ctx, "", "results", amqp091.Publishing{Body: d.Body, MessageId: d.MessageId})
		switch {
		case errors.Is(err, amqp.ErrMaybeDelivered):
			// The consumer of results deduplicates by MessageId: ack, and
			// the job is not done twice.
		case err != nil:
			_ = d.Nack(false, true) // not published: the job comes again
			continue
		}
		_ = d.Ack(false) // ErrStaleDelivery: the job comes again, marked Redelivered
	}
	if err := c.Err(); err != nil {
		log.Fatal(err) // gave up: a wrong password, a missing vhost
	}
}

// A password that rotates (an OAuth 2 token, a secret from a vault):
// BeforeConnect hands each attempt the current one, and a refused login is
// retried rather than final. (It needs a broker, so it is compiled but not
// run.)
func ExampleOptions_beforeConnect() {
	token := func(context.Context) (string, error) { return os.Getenv("RABBIT_TOKEN"), nil }
	c, err := amqp.New("amqp://app@rabbit:5672/%2F", amqp.Options{
		BeforeConnect: func(ctx context.Context, u *url.URL) error {
			t, err := token(ctx)
			if err != nil {
				return err // this attempt fails; the next one asks again
			}
			u.User = url.UserPassword(u.User.Username(), t) // masked wherever it could show
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = c.Run(context.Background())
}
