package otel_test

import (
	"context"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/embedded"

	"github.com/redial-go/redial/health"
	redialotel "github.com/redial-go/redial/health/otel"
)

type replicated struct{}

func (replicated) Status() health.Status { return health.Status{State: health.Connected} }
func (replicated) Endpoints() []health.EndpointStatus {
	return []health.EndpointStatus{
		{Name: "a:1", State: health.EndpointEjected, ConsecutiveFailures: 3, EjectedUntil: time.Now().Add(time.Hour)},
		{Name: "b\xff"},
	}
}

// endpointPoints records the points that carry redial.endpoint.
type endpointPoints struct {
	embedded.Observer
	states   map[string]string // endpoint: its state observed as 1
	failures map[string]int64
	ejected  map[string]float64
}

func (p *endpointPoints) ObserveFloat64(_ metric.Float64Observable, v float64, opts ...metric.ObserveOption) {
	set := metric.NewObserveConfig(opts).Attributes()
	if ep, ok := set.Value(attribute.Key("redial.endpoint")); ok {
		p.ejected[ep.AsString()] = v
	}
}

func (p *endpointPoints) ObserveInt64(_ metric.Int64Observable, v int64, opts ...metric.ObserveOption) {
	set := metric.NewObserveConfig(opts).Attributes()
	ep, ok := set.Value(attribute.Key("redial.endpoint"))
	if !ok {
		return
	}
	if st, ok := set.Value(attribute.Key("redial.endpoint.state")); ok {
		if v == 1 {
			p.states[ep.AsString()] = st.AsString()
		}
		return
	}
	p.failures[ep.AsString()] = v
}

// TestEndpointPoints: each endpoint of a source with several is observed
// with its state, failures and ejection left, its name valid UTF-8.
func TestEndpointPoints(t *testing.T) {
	var reg health.Registry
	reg.Add("feed", replicated{}, health.SourceOptions{})
	meter := &keptCallback{}
	_, err := redialotel.New(&reg, meter)
	require.NoError(t, err)
	got := &endpointPoints{states: map[string]string{}, failures: map[string]int64{}, ejected: map[string]float64{}}
	require.NoError(t, meter.cb(context.Background(), got))
	assert.Equal(t, map[string]string{"a:1": "ejected", "b\uFFFD": "healthy"}, got.states)
	assert.Equal(t, map[string]int64{"a:1": 3, "b\uFFFD": 0}, got.failures)
	assert.InDelta(t, 3600, got.ejected["a:1"], 5)
	for ep := range got.states {
		assert.True(t, utf8.ValidString(ep))
	}
}
