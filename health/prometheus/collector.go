package prometheus

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/opterr"
)

// Collector is a prometheus.Collector over a health.Registry, safe for
// concurrent use; register it once.
type Collector struct {
	reg *health.Registry
	now func() time.Time

	up, state, connects, failures, next, uptime, reconnects, outage, waiting, oldest, degraded *prometheus.Desc
	epState, epFailures, epEjected                                                             *prometheus.Desc
}

// New returns a Collector over r; sources added to r later are exported
// from the next scrape on.
func New(r *health.Registry) (*Collector, error) {
	if r == nil {
		return nil, opterr.New("prometheus", "registry", nil, "nil")
	}
	name := []string{"name"}
	return &Collector{
		reg:        r,
		now:        time.Now,
		up:         prometheus.NewDesc("redial_up", "Whether the connection is established (1) or not (0).", name, nil),
		state:      prometheus.NewDesc("redial_state", "The connection's lifecycle state: 1 for the current state, 0 for the others.", []string{"name", "state"}, nil),
		connects:   prometheus.NewDesc("redial_connects_total", "Connections established.", name, nil),
		failures:   prometheus.NewDesc("redial_connect_failures_total", "Connection attempts that failed.", name, nil),
		next:       prometheus.NewDesc("redial_next_attempt_seconds", "Seconds until the next connection attempt; 0 when none is planned.", name, nil),
		uptime:     prometheus.NewDesc("redial_connection_uptime_seconds", "Seconds the current connection has been established; 0 when down.", name, nil),
		reconnects: prometheus.NewDesc("redial_reconnects_last_minute", "Connections re-established after a loss or a replacement in the last minute.", name, nil),
		outage:     prometheus.NewDesc("redial_longest_outage_seconds", "Longest time without a connection after a loss, the current outage included.", name, nil),
		waiting:    prometheus.NewDesc("redial_lag_waiting", "Items the source received that the program has not taken yet.", name, nil),
		oldest:     prometheus.NewDesc("redial_lag_oldest_seconds", "Seconds the oldest item not yet taken by the program has waited; 0 when none.", name, nil),
		degraded:   prometheus.NewDesc("redial_degraded", "Whether the source is connected but unable to serve (1), such as a broker blocking publishing, or not (0).", name, nil),
		epState:    prometheus.NewDesc("redial_endpoint_state", "An endpoint's health, with several endpoints: 1 for its state (healthy, ejected, probing), 0 for the others.", []string{"name", "endpoint", "state"}, nil),
		epFailures: prometheus.NewDesc("redial_endpoint_consecutive_failures", "Failed attempts in a row on an endpoint, with several endpoints.", []string{"name", "endpoint"}, nil),
		epEjected:  prometheus.NewDesc("redial_endpoint_ejected_seconds", "Seconds until an endpoint's ejection ends; 0 when it is not ejected.", []string{"name", "endpoint"}, nil),
	}, nil
}

// Describe sends the descriptors of every metric.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.up, c.state, c.connects, c.failures, c.next, c.uptime, c.reconnects, c.outage, c.waiting, c.oldest, c.degraded, c.epState, c.epFailures, c.epEjected} {
		ch <- d
	}
}

// Collect reads every source's Status and sends its metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	now := c.now()
	for _, e := range c.reg.Entries() {
		st := e.Status
		e.Name = label(e.Name)
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, boolValue(st.State == health.Connected), e.Name)
		for _, s := range health.States() {
			ch <- prometheus.MustNewConstMetric(c.state, prometheus.GaugeValue, boolValue(st.State == s), e.Name, s.String())
		}
		ch <- prometheus.MustNewConstMetric(c.connects, prometheus.CounterValue, float64(st.Connects), e.Name)
		ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(st.Failures), e.Name)
		ch <- prometheus.MustNewConstMetric(c.next, prometheus.GaugeValue, st.RetryIn(now).Seconds(), e.Name)
		ch <- prometheus.MustNewConstMetric(c.uptime, prometheus.GaugeValue, st.Uptime(now).Seconds(), e.Name)
		ch <- prometheus.MustNewConstMetric(c.reconnects, prometheus.GaugeValue, float64(st.ReconnectsLastMinute), e.Name)
		ch <- prometheus.MustNewConstMetric(c.outage, prometheus.GaugeValue, st.LongestOutage.Seconds(), e.Name)
		ch <- prometheus.MustNewConstMetric(c.waiting, prometheus.GaugeValue, float64(e.Lag.Waiting), e.Name)
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, e.Lag.Oldest.Seconds(), e.Name)
		ch <- prometheus.MustNewConstMetric(c.degraded, prometheus.GaugeValue, boolValue(e.Degraded != nil), e.Name)
		c.endpoints(ch, e.Name, e.Endpoints, now)
	}
}

// endpoints sends the metrics of each endpoint of a source with several.
func (c *Collector) endpoints(ch chan<- prometheus.Metric, name string, eps []health.EndpointStatus, now time.Time) {
	for _, ep := range eps {
		ep.Name = label(ep.Name)
		for _, s := range health.EndpointStates() {
			ch <- prometheus.MustNewConstMetric(c.epState, prometheus.GaugeValue, boolValue(ep.State == s), name, ep.Name, s.String())
		}
		ch <- prometheus.MustNewConstMetric(c.epFailures, prometheus.GaugeValue, float64(ep.ConsecutiveFailures), name, ep.Name)
		ch <- prometheus.MustNewConstMetric(c.epEjected, prometheus.GaugeValue, max(ep.EjectedUntil.Sub(now), 0).Seconds(), name, ep.Name)
	}
}

// label is name as a label value: Prometheus refuses one that is not
// UTF-8 (MustNewConstMetric would panic, and the scrape lose every source).
func label(name string) string { return strings.ToValidUTF8(name, "\uFFFD") }

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
