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
	DefaultHeartbeat = 10 * time.Second // a silent broker is found within 15s
	DefaultPrefetch  = 32               // unacknowledged deliveries a consumer holds
)

// Options configures the Client that New returns. The zero value of every
// field means its documented default; New copies it.
type Options struct {
	// Topology declares the exchanges, queues and bindings the program
	// needs, on every connection, with a channel of its own closed after
	// it. It is part of the attempt (ConnectTimeout bounds it); its error
	// fails the attempt (403 and 406 for good). nil: nothing.
	Topology func(ctx context.Context, ch *amqp091.Channel) error
	// BeforeConnect, when set, is called before every attempt with a copy
	// of the URL it dials, and may change it (a rotating password, masked
	// like the url's). Its error fails the attempt. With it set, a refused
	// login (403, 530) is retried: the next may carry new credentials.
	BeforeConnect func(ctx context.Context, u *url.URL) error
	// Replicas are the cluster's other nodes: after a failed attempt or a
	// lost connection the next is tried at once (within FailoverSpread);
	// the backoff waits only when every one failed.
	Replicas []string
	// TLS is used for amqps:// URLs; nil means Go's defaults.
	TLS *tls.Config
	// Heartbeat is the AMQP heartbeat interval asked of the broker, whole
	// seconds, 0 meaning 10s; 1.5 silent intervals lose the connection.
	Heartbeat time.Duration
	// Prefetch is each Deliveries consumer's basic.qos; 0 means 32.
	Prefetch int
	// Supervisor configures the supervisor; an empty Name becomes the url,
	// redacted; its Classify runs after this package's.
	Supervisor supervisor.Settings
}

// maxHeartbeat is AMQP's longest: a 16-bit count of seconds.
const maxHeartbeat = 65535 * time.Second

// validate checks every field but Supervisor and fills in the defaults.
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
