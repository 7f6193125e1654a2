package otel_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/redial-go/redial/health"
)

const scope = "github.com/redial-go/redial/health/otel"

// collect runs one collection of r and returns the package's scope; a zero
// ScopeMetrics when it reported nothing.
func collect(t *testing.T, r *sdkmetric.ManualReader) metricdata.ScopeMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.Collect(t.Context(), &rm))
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name == scope {
			return sm
		}
	}
	return metricdata.ScopeMetrics{}
}

// point is what one source reports, apart from up and state, which follow
// from its State.
type point struct {
	state                               health.State
	connects, failures, reconn, waiting int64
	degraded                            bool
	next, uptime, longestOutage, oldest float64
}

// expect returns the metrics the package reports for one source called name.
func expect(name string, p point) []metricdata.Metrics {
	at := attribute.NewSet(attribute.String("redial.name", name))
	gauge := func(n, unit, desc string, v int64) metricdata.Metrics {
		return metricdata.Metrics{Name: n, Unit: unit, Description: desc, Data: metricdata.Gauge[int64]{
			DataPoints: []metricdata.DataPoint[int64]{{Attributes: at, Value: v}},
		}}
	}
	counter := func(n, unit, desc string, v int64) metricdata.Metrics {
		return metricdata.Metrics{Name: n, Unit: unit, Description: desc, Data: metricdata.Sum[int64]{
			Temporality: metricdata.CumulativeTemporality, IsMonotonic: true,
			DataPoints: []metricdata.DataPoint[int64]{{Attributes: at, Value: v}},
		}}
	}
	seconds := func(n, desc string, v float64) metricdata.Metrics {
		return metricdata.Metrics{Name: n, Unit: "s", Description: desc, Data: metricdata.Gauge[float64]{
			DataPoints: []metricdata.DataPoint[float64]{{Attributes: at, Value: v}},
		}}
	}
	var states []metricdata.DataPoint[int64]
	for _, s := range health.States() {
		states = append(states, metricdata.DataPoint[int64]{
			Attributes: attribute.NewSet(attribute.String("redial.name", name), attribute.String("redial.state", s.String())),
			Value:      one(p.state == s),
		})
	}
	return []metricdata.Metrics{
		gauge("redial.connection.up", "1", "Whether the connection is established (1) or not (0).", one(p.state == health.Connected)),
		{Name: "redial.connection.state", Unit: "1", Description: "The connection's lifecycle state: 1 for the current state, 0 for the others.",
			Data: metricdata.Gauge[int64]{DataPoints: states}},
		counter("redial.connection.connects", "{connection}", "Connections established.", p.connects),
		counter("redial.connection.failures", "{attempt}", "Connection attempts that failed.", p.failures),
		seconds("redial.connection.next_attempt", "Seconds until the next connection attempt; 0 when none is planned.", p.next),
		seconds("redial.connection.uptime", "Seconds the current connection has been established; 0 when down.", p.uptime),
		gauge("redial.connection.reconnects", "{connection}", "Connections re-established after a loss or a replacement in the last minute.", p.reconn),
		seconds("redial.connection.longest_outage", "Longest time without a connection after a loss, the current outage included.", p.longestOutage),
		gauge("redial.connection.lag.waiting", "{item}", "Items the source received that the program has not taken yet.", p.waiting),
		seconds("redial.connection.lag.oldest", "Seconds the oldest item not yet taken by the program has waited; 0 when none.", p.oldest),
		gauge("redial.connection.degraded", "1", "Whether the source is connected but unable to serve (1), such as a broker blocking publishing, or not (0).", one(p.degraded)),
	}
}

func one(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func attributeName(name string) attribute.KeyValue { return attribute.String("redial.name", name) }
