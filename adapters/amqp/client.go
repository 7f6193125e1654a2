package amqp

import (
	"context"
	"sync"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/supervisor"
)

// Client is the supervisor of an *amqp091.Connection, with Publish,
// Deliveries, and a Status that says when the broker blocks publishing;
// Run, Subscribe, Done, Err, Name, History and RetryNow are the
// supervisor's. Its methods are safe for concurrent use.
type Client struct {
	lifecycle
	sup       *supervisor.Supervisor[*amqp091.Connection]
	c         *connector
	draining  chan struct{} // closed by Drain: the Deliveries loops cancel their consumers
	drainOnce sync.Once
}

// lifecycle is what a Client offers of its supervisor.
type lifecycle = adapt.Lifecycle[*amqp091.Connection]

// New returns a Client for the broker at url
// (amqp://user:password@host:5672/vhost, or amqps://); Run starts it. The
// defaults of o: no Topology, BeforeConnect or Replicas, TLS Go's,
// Heartbeat 10s (a silent broker found within 15s), Prefetch 32, the
// supervisor's own, and Name the url, redacted. New copies o. A bad url or
// option is one error wrapping supervisor.ErrInvalidOptions that names it:
// `amqp: Heartbeat -1s: negative`.
func New(url string, o Options) (*Client, error) {
	ts, err := parseTargets(url, o.Replicas)
	if err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	c := newConnector(ts, o)
	sp := adapt.Spec{Pkg: pkg, Name: ts[0].shown, Classify: c.classify, Set: c.secrets}
	s, err := adapt.New(sp, c, supervisor.Options[*amqp091.Connection]{Settings: o.Supervisor})
	if err != nil {
		return nil, err
	}
	c.name = s.Name()
	return &Client{lifecycle: adapt.Lift(s), sup: s, c: c, draining: make(chan struct{})}, nil
}

// Drain is the supervisor's Drain (see supervisor.Supervisor.Drain) that
// first cancels every Deliveries loop's consumer: each yields what it
// had received, then ends, and the connection closes (connection.close)
// once they all have; what the program did not ack is requeued.
func (c *Client) Drain(ctx context.Context) error {
	c.drainOnce.Do(func() { close(c.draining) })
	return c.sup.Drain(ctx)
}

// Draining reports whether Drain has begun.
func (c *Client) Draining() bool {
	select {
	case <-c.draining:
		return true
	default:
		return c.sup.Draining()
	}
}

// Status is the supervisor's, whose Err is Degraded's error while the
// broker blocks publishing; the state stays Connected.
func (c *Client) Status() health.Status {
	st := c.sup.Status()
	if err := c.Degraded(); err != nil && st.State == health.Connected {
		st.Err = err
	}
	return st
}

// Degraded returns an error wrapping ErrBlocked, with the broker's reason
// and since when, while the broker blocks publishing (a resource alarm);
// nil otherwise. A Client added to a health.Registry as critical makes the
// program not ready meanwhile.
func (c *Client) Degraded() error {
	if l := c.c.current.Load(); l != nil {
		if b := l.blocked.Load(); b != nil {
			return b.err
		}
	}
	return nil
}

var _ health.DegradedSource = (*Client)(nil)
