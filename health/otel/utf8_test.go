package otel_test

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/embedded"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/redial-go/redial/health"
	redialotel "github.com/redial-go/redial/health/otel"
)

// keptCallback is a meter that keeps the callback registered on it.
type keptCallback struct {
	noop.Meter
	cb metric.Callback
}

func (m *keptCallback) RegisterCallback(cb metric.Callback, _ ...metric.Observable) (metric.Registration, error) {
	m.cb = cb
	return noop.Registration{}, nil
}

// names records the redial.name of every point observed.
type names struct {
	embedded.Observer
	seen []string
}

func (n *names) ObserveFloat64(_ metric.Float64Observable, _ float64, opts ...metric.ObserveOption) {
	n.add(opts)
}
func (n *names) ObserveInt64(_ metric.Int64Observable, _ int64, opts ...metric.ObserveOption) {
	n.add(opts)
}
func (n *names) add(opts []metric.ObserveOption) {
	set := metric.NewObserveConfig(opts).Attributes()
	if v, ok := set.Value(attribute.Key("redial.name")); ok {
		n.seen = append(n.seen, v.AsString())
	}
}

// TestNameNotUTF8: a source whose Name is not valid UTF-8 is observed with
// U+FFFD for the bad bytes; before, the raw bytes went to the exporter,
// and OTLP (protobuf) refuses such a string and the export with it.
func TestNameNotUTF8(t *testing.T) {
	var reg health.Registry
	reg.Add("db\xff", health.SourceFunc(func() health.Status { return health.Status{State: health.Connected} }), health.SourceOptions{Critical: true})
	meter := &keptCallback{}
	_, err := redialotel.New(&reg, meter)
	require.NoError(t, err)
	var got names
	require.NoError(t, meter.cb(context.Background(), &got))
	require.NotEmpty(t, got.seen)
	for _, s := range got.seen {
		assert.True(t, utf8.ValidString(s), "%q", s)
		assert.Equal(t, "db\uFFFD", s)
	}
}
