package amqp

import (
	"context"
	"crypto/tls"
	"net/url"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

const pkg = "amqp"

// Defaults of Options.
const (
	// DefaultHeartbeat finds a silent broker within 15s: the connection
	// is given up after 1.5 heartbeat intervals without a frame.
	DefaultHeartbeat = 10 * time.Second
	// DefaultPrefetch is how many unacknowledged deliveries a consumer
	// holds at most.
	DefaultPrefetch = 32
)

// Options configures the Client that New returns. The zero value of every
// field means its documented default; New copies it.
type Options struct {
	// Topology declares the exchanges, queues and bindings the program
	// needs, on every new connection (after every reconnect too), with a
	// channel of its own that is closed after it returns. It runs inside
	// the attempt (Supervisor.ConnectTimeout bounds it) and its error is
	// the attempt's: 403 ACCESS_REFUSED and 406 PRECONDITION_FAILED (a
	// queue redeclared with other arguments) are permanent, the rest
	// retried. nil: nothing is declared.
	Topology func(ctx context.Context, ch *amqp091.Channel) error
	// BeforeConnect, when set, is called before every attempt with a copy
	// of the URL the attempt dials (the url or a replica); it may change
	// it, most often its password (a rotating token). The values it sets
	// are masked like the url's. An error from it fails the attempt
	// (retried, unless it is backoff.Permanent). With it set, a login
	// refused (403 ACCESS_REFUSED, 530 NOT_ALLOWED) is retried with the
	// backoff: the next attempt may carry new credentials.
	BeforeConnect func(ctx context.Context, u *url.URL) error
	// Replicas are more URLs of the same service: the other nodes of a
	// cluster. The supervisor tries url first; after a failed attempt or
	// a lost connection it goes to the next node at once (within the
	// supervisor's FailoverSpread), and backs off only when every one
	// failed. Status.Endpoint says which is in use.
	Replicas []string
	// TLS is used for amqps:// URLs; nil means Go's defaults with the
	// URL's host as ServerName. It is cloned at construction.
	TLS *tls.Config
	// Heartbeat is the AMQP heartbeat interval asked of the broker (it
	// may choose a shorter one): a whole number of seconds, 0 meaning
	// 10s. A broker silent for 1.5 intervals is given up on: 15s with the
	// default. A heartbeat in the url's query is refused: set it here.
	Heartbeat time.Duration
	// Prefetch is how many unacknowledged deliveries each Deliveries
	// consumer holds at most (basic.qos); 0 means 32.
	Prefetch int
	// Supervisor configures the supervisor; see supervisor.New for its
	// defaults. An empty Name becomes the url, redacted. Its Classify, if
	// set, runs after this package's.
	Supervisor supervisor.Options[*amqp091.Connection]
}

// maxHeartbeat is the longest heartbeat AMQP can say (a 16-bit count of
// seconds).
const maxHeartbeat = 65535 * time.Second

// validate checks every field but Supervisor (adapt.New checks those),
// fills in the defaults and copies what the program could change.
func (o *Options) validate() error {
	switch {
	case o.Heartbeat < 0:
		return opterr.New(pkg, "Heartbeat", o.Heartbeat, "negative")
	case o.Heartbeat > maxHeartbeat:
		return opterr.New(pkg, "Heartbeat", o.Heartbeat, "longer than %v", maxHeartbeat)
	case o.Heartbeat%time.Second != 0:
		return opterr.New(pkg, "Heartbeat", o.Heartbeat, "not a whole number of seconds (AMQP counts heartbeats in seconds)")
	case o.Prefetch < 0:
		return opterr.New(pkg, "Prefetch", o.Prefetch, "negative")
	case o.Prefetch > 65535:
		return opterr.New(pkg, "Prefetch", o.Prefetch, "more than 65535 (basic.qos counts in 16 bits)")
	}
	if o.Heartbeat == 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	if o.Prefetch == 0 {
		o.Prefetch = DefaultPrefetch
	}
	o.Replicas = append([]string(nil), o.Replicas...)
	if o.TLS != nil {
		o.TLS = o.TLS.Clone()
	}
	return nil
}
