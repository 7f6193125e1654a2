package otel_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/redial-go/redial/health"
	redialotel "github.com/redial-go/redial/health/otel"
	"github.com/redial-go/redial/supervisor"
)

func TestNewRejectsNilRegistry(t *testing.T) {
	_, err := redialotel.New(nil, noop.Meter{})
	assert.EqualError(t, err, "otel: registry: nil")
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
}

func TestNewRejectsNilMeter(t *testing.T) {
	_, err := redialotel.New(&health.Registry{}, nil)
	assert.EqualError(t, err, "otel: meter: nil")
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
}

func TestNoopMeter(t *testing.T) {
	var reg health.Registry
	reg.Add("db", health.SourceFunc(func() health.Status { return health.Status{State: health.Connected} }), health.SourceOptions{Critical: true})
	m, err := redialotel.New(&reg, noop.NewMeterProvider().Meter("test"))
	require.NoError(t, err)
	assert.NoError(t, m.Unregister())
	assert.NoError(t, m.Unregister(), "a second Unregister is harmless")
}

var errMeter = errors.New("meter broke")

// brokenGauges fails to create float gauges.
type brokenGauges struct{ noop.Meter }

func (brokenGauges) Float64ObservableGauge(string, ...metric.Float64ObservableGaugeOption) (metric.Float64ObservableGauge, error) {
	return noop.Float64ObservableGauge{}, errMeter
}

// brokenCallbacks refuses callbacks.
type brokenCallbacks struct{ noop.Meter }

func (brokenCallbacks) RegisterCallback(metric.Callback, ...metric.Observable) (metric.Registration, error) {
	return nil, errMeter
}

func TestNewReturnsMeterErrors(t *testing.T) {
	for _, meter := range []metric.Meter{brokenGauges{}, brokenCallbacks{}} {
		m, err := redialotel.New(&health.Registry{}, meter)
		assert.Nil(t, m)
		assert.EqualError(t, err, "otel: meter broke")
		assert.ErrorIs(t, err, errMeter)
		assert.NotErrorIs(t, err, supervisor.ErrInvalidOptions, "a failing meter is not a bad option")
	}
}
