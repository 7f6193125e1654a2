package amqp

import (
	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/supervisor"
)

// Client keeps an AMQP connection alive: it is the supervisor of
// *amqp091.Connection (Run, Conn, Do, Connections, Invalidate, Subscribe,
// Done, Err, Name, History...), plus Publish with confirms, the
// Deliveries iterator, and a Status that tells when the broker blocks
// publishing. Its methods are safe for concurrent use.
type Client struct {
	*supervisor.Supervisor[*amqp091.Connection]
	c *connector
}

// New returns a Client for the broker at url (amqp:// or amqps://, user,
// password and vhost as in RabbitMQ's URI spec: amqp://user:pw@host:5672/vhost,
// the vhost "/" as %2F or an empty path); Run starts it. Every connection
// gets the Topology, then Supervisor.OnConnect, before it counts as
// connected. amqp091's own recovery stays off: the supervisor reconnects.
//
// The defaults of o: no Topology, no BeforeConnect, no Replicas, TLS Go's,
// Heartbeat 10s (a silent broker is found within 15s), Prefetch 32; the
// supervisor's own (Backoff Decorrelated with Base 1s and Cap 1 minute,
// StableAfter 30s, ConnectTimeout 10s, MaxAttempts 0, MaxHint 5 minutes,
// no Budget, no Classify but this package's, no Logger, no OnConnect), and
// Name the url, redacted. New copies o.
//
// A bad url or option is one error, wrapping supervisor.ErrInvalidOptions,
// that names it: `amqp: Heartbeat -1s: negative`, `amqp: url: empty`. The
// url's user name and password reach no error, log line, Status or page.
func New(url string, o Options) (*Client, error) {
	ts, err := parseTargets(url, o.Replicas)
	if err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	c := newConnector(ts, o)
	sp := adapt.Spec{Pkg: pkg, Name: ts[0].shown, Classify: c.classify}
	var s *supervisor.Supervisor[*amqp091.Connection]
	if len(ts) > 1 {
		s, err = adapt.New[*amqp091.Connection](sp, replicas{c}, o.Supervisor)
	} else {
		s, err = adapt.New(sp, c, o.Supervisor)
	}
	if err != nil {
		return nil, err
	}
	c.name = s.Name()
	return &Client{Supervisor: s, c: c}, nil
}

// Status is the supervisor's Status, whose Err, while the broker blocks
// the live connection's publishing (connection.blocked: a memory or disk
// alarm), says so and since when, wrapping ErrBlocked. The state stays
// Connected: consuming goes on; Publish waits.
func (c *Client) Status() health.Status {
	st := c.Supervisor.Status()
	if l := c.c.current.Load(); l != nil && st.State == health.Connected {
		if b := l.blocked.Load(); b != nil {
			st.Err = b.err
		}
	}
	return st
}
