package otel

import (
	"context"
	"math"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/redial-go/redial/health"
)

// observe reads every source's Status once and reports its points.
func (m *Metrics) observe(_ context.Context, o metric.Observer) error {
	now := m.now()
	for _, e := range m.reg.Entries() {
		st := e.Status
		name := attribute.String("redial.name", strings.ToValidUTF8(e.Name, "\uFFFD")) // OTLP (protobuf) refuses a string that is not UTF-8, and the export with it
		at := metric.WithAttributeSet(attribute.NewSet(name))
		o.ObserveInt64(m.up, boolValue(st.State == health.Connected), at)
		for _, s := range health.States() {
			o.ObserveInt64(m.state, boolValue(st.State == s),
				metric.WithAttributes(name, attribute.String("redial.state", s.String())))
		}
		o.ObserveInt64(m.connects, count(st.Connects), at)
		o.ObserveInt64(m.failures, count(st.Failures), at)
		o.ObserveFloat64(m.next, st.RetryIn(now).Seconds(), at)
		o.ObserveFloat64(m.uptime, st.Uptime(now).Seconds(), at)
		o.ObserveInt64(m.reconnects, int64(st.ReconnectsLastMinute), at)
		o.ObserveFloat64(m.outage, st.LongestOutage.Seconds(), at)
		o.ObserveInt64(m.waiting, int64(e.Lag.Waiting), at)
		o.ObserveFloat64(m.oldest, e.Lag.Oldest.Seconds(), at)
		o.ObserveInt64(m.degraded, boolValue(e.Degraded != nil), at)
		for _, ep := range e.Endpoints {
			epName := attribute.String("redial.endpoint", strings.ToValidUTF8(ep.Name, "\uFFFD"))
			for _, s := range health.EndpointStates() {
				o.ObserveInt64(m.epState, boolValue(ep.State == s),
					metric.WithAttributes(name, epName, attribute.String("redial.endpoint.state", s.String())))
			}
			epAt := metric.WithAttributeSet(attribute.NewSet(name, epName))
			o.ObserveInt64(m.epFailures, int64(ep.ConsecutiveFailures), epAt)
			o.ObserveFloat64(m.epEjected, max(ep.EjectedUntil.Sub(now), 0).Seconds(), epAt)
		}
	}
	return nil
}

func boolValue(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// count converts a Status counter, saturating at the largest int64.
func count(n uint64) int64 { return int64(min(n, math.MaxInt64)) }
