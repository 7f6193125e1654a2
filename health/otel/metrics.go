package otel

import (
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/opterr"
)

// Metrics is the set of instruments New registered on a Meter over a
// health.Registry. It is safe for concurrent use.
type Metrics struct {
	reg *health.Registry
	now func() time.Time

	up, state, connects, failures, reconnects, waiting, degraded metric.Int64Observable
	next, uptime, outage, oldest                                 metric.Float64Observable
	epState, epFailures                                          metric.Int64Observable
	epEjected                                                    metric.Float64Observable

	registration metric.Registration
	once         sync.Once
	err          error
}

// New creates the package's instruments on meter and registers one callback
// that observes every source of r at each collection. Sources added to r
// later are exported too, from the next collection on. A nil r or meter is
// an error wrapping supervisor.ErrInvalidOptions; an error of the meter is
// returned as it is, prefixed "otel: ".
func New(r *health.Registry, meter metric.Meter) (*Metrics, error) {
	if r == nil {
		return nil, opterr.New("otel", "registry", nil, "nil")
	}
	if meter == nil {
		return nil, opterr.New("otel", "meter", nil, "nil")
	}
	m := &Metrics{reg: r, now: time.Now}
	var errs []error
	gauge := func(name, unit, desc string) metric.Int64Observable {
		g, err := meter.Int64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return g
	}
	counter := func(name, unit, desc string) metric.Int64Observable {
		c, err := meter.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	seconds := func(name, desc string) metric.Float64Observable {
		g, err := meter.Float64ObservableGauge(name, metric.WithUnit("s"), metric.WithDescription(desc))
		errs = append(errs, err)
		return g
	}
	m.up = gauge("redial.connection.up", "1", "Whether the connection is established (1) or not (0).")
	m.state = gauge("redial.connection.state", "1", "The connection's lifecycle state: 1 for the current state, 0 for the others.")
	m.connects = counter("redial.connection.connects", "{connection}", "Connections established.")
	m.failures = counter("redial.connection.failures", "{attempt}", "Connection attempts that failed.")
	m.next = seconds("redial.connection.next_attempt", "Seconds until the next connection attempt; 0 when none is planned.")
	m.uptime = seconds("redial.connection.uptime", "Seconds the current connection has been established; 0 when down.")
	m.reconnects = gauge("redial.connection.reconnects", "{connection}", "Connections re-established after a loss or a replacement in the last minute.")
	m.outage = seconds("redial.connection.longest_outage", "Longest time without a connection after a loss, the current outage included.")
	m.waiting = gauge("redial.connection.lag.waiting", "{item}", "Items the source received that the program has not taken yet.")
	m.oldest = seconds("redial.connection.lag.oldest", "Seconds the oldest item not yet taken by the program has waited; 0 when none.")
	m.degraded = gauge("redial.connection.degraded", "1", "Whether the source is connected but unable to serve (1), such as a broker blocking publishing, or not (0).")
	m.epState = gauge("redial.endpoint.state", "1", "An endpoint's health, with several endpoints: 1 for its state (healthy, ejected, probing), 0 for the others.")
	m.epFailures = gauge("redial.endpoint.consecutive_failures", "{attempt}", "Failed attempts in a row on an endpoint, with several endpoints.")
	m.epEjected = seconds("redial.endpoint.ejected", "Seconds until an endpoint's ejection ends; 0 when it is not ejected.")
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("otel: %w", err)
		}
	}
	reg, err := meter.RegisterCallback(m.observe, m.up, m.state, m.connects, m.failures, m.next, m.uptime, m.reconnects, m.outage, m.waiting, m.oldest, m.degraded,
		m.epState, m.epFailures, m.epEjected)
	if err != nil {
		return nil, fmt.Errorf("otel: %w", err)
	}
	m.registration = reg
	return m, nil
}

// Unregister removes the callback: collections after it observe nothing of
// the Registry. Calling it again returns the first call's result.
func (m *Metrics) Unregister() error {
	m.once.Do(func() { m.err = m.registration.Unregister() })
	return m.err
}
