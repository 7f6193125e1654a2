package otel_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	redialotel "github.com/redial-go/redial/health/otel"
	"github.com/redial-go/redial/supervisor"
)

// newMeter returns a ManualReader and a Meter of the package's scope on a
// MeterProvider that the test shuts down.
func newMeter(t *testing.T) (*sdkmetric.ManualReader, *sdkmetric.MeterProvider) {
	t.Helper()
	r := sdkmetric.NewManualReader()
	p := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	t.Cleanup(func() { assert.NoError(t, p.Shutdown(context.Background())) })
	return r, p
}

func TestMetricsFollowASupervisor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &link{}
		s, err := supervisor.New[chan struct{}](l, supervisor.Options[chan struct{}]{
			Settings: supervisor.Settings{
				Name:    "db",
				Backoff: backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: time.Minute},
			},
		})
		require.NoError(t, err)
		var reg health.Registry
		reg.Add("db", s, health.SourceOptions{Critical: true})
		reader, provider := newMeter(t)
		m, err := redialotel.New(&reg, provider.Meter(scope))
		require.NoError(t, err)
		check := func(p point) {
			t.Helper()
			synctest.Wait()
			want := metricdata.ScopeMetrics{Metrics: expect("db", p)}
			want.Scope.Name = scope
			metricdatatest.AssertEqual(t, want, collect(t, reader), metricdatatest.IgnoreTimestamp())
		}

		check(point{state: health.Idle})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		time.Sleep(5 * time.Second)
		check(point{state: health.Connected, connects: 1, uptime: 5})

		l.down.Store(true)
		l.breakLast() // flapping loss after 5s: waits 1s
		synctest.Wait()
		time.Sleep(250 * time.Millisecond)
		check(point{state: health.Backoff, connects: 1, next: 0.75, longestOutage: 0.25})
		time.Sleep(750 * time.Millisecond) // the retry fails: waits 2s
		check(point{state: health.Backoff, connects: 1, failures: 1, next: 2, longestOutage: 1})

		l.down.Store(false)
		time.Sleep(2 * time.Second)
		check(point{state: health.Connected, connects: 2, failures: 1, reconn: 1, longestOutage: 3})

		cancel()
		require.NoError(t, <-done)
		check(point{state: health.Stopped, connects: 2, failures: 1, reconn: 1, longestOutage: 3})

		require.NoError(t, m.Unregister())
		assert.Empty(t, points(collect(t, reader)), "nothing is observed after Unregister")
	})
}

// points counts the data points of every metric in sm.
func points(sm metricdata.ScopeMetrics) (n int) {
	for _, m := range sm.Metrics {
		switch d := m.Data.(type) {
		case metricdata.Gauge[int64]:
			n += len(d.DataPoints)
		case metricdata.Gauge[float64]:
			n += len(d.DataPoints)
		case metricdata.Sum[int64]:
			n += len(d.DataPoints)
		}
	}
	return n
}

func TestOneReadPerCollection(t *testing.T) {
	var reads atomic.Int64
	var reg health.Registry
	reg.Add("cache", health.SourceFunc(func() health.Status {
		reads.Add(1)
		return health.Status{State: health.Backoff}
	}), health.SourceOptions{})
	reader, provider := newMeter(t)
	m, err := redialotel.New(&reg, provider.Meter(scope))
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Unregister()) }()
	assert.Zero(t, reads.Load(), "nothing is read before a collection")

	sm := collect(t, reader)
	assert.Equal(t, int64(1), reads.Load(), "one callback reads each source once per collection")
	assert.Equal(t, 10+6, points(sm), "ten points and one per state")
	metricdatatest.AssertHasAttributes(t, sm, attributeName("cache"))

	reg.Add("queue", health.SourceFunc(func() health.Status { return health.Status{State: health.Connected} }), health.SourceOptions{Critical: true})
	sm = collect(t, reader)
	assert.Equal(t, int64(2), reads.Load())
	assert.Equal(t, 2*(10+6), points(sm), "a source added later is observed from the next collection on")
}

// TestLagPoints: a feed whose program is behind reports how many items wait
// and the oldest's age.
func TestLagPoints(t *testing.T) {
	var reg health.Registry
	reg.Add("feed", lagSource{}, health.SourceOptions{Critical: true})
	reader, provider := newMeter(t)
	m, err := redialotel.New(&reg, provider.Meter(scope))
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Unregister()) }()
	want := metricdata.ScopeMetrics{Metrics: expect("feed", point{state: health.Connected, waiting: 3677, oldest: 183.5})}
	want.Scope.Name = scope
	metricdatatest.AssertEqual(t, want, collect(t, reader), metricdatatest.IgnoreTimestamp())
}

// TestDegradedPoints: a source that is connected but degraded reports 1.
func TestDegradedPoints(t *testing.T) {
	var reg health.Registry
	reg.Add("broker", blockedSource{}, health.SourceOptions{Critical: true})
	reader, provider := newMeter(t)
	m, err := redialotel.New(&reg, provider.Meter(scope))
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Unregister()) }()
	want := metricdata.ScopeMetrics{Metrics: expect("broker", point{state: health.Connected, degraded: true})}
	want.Scope.Name = scope
	metricdatatest.AssertEqual(t, want, collect(t, reader), metricdatatest.IgnoreTimestamp())
}

// blockedSource is a Connected DegradedSource.
type blockedSource struct{}

func (blockedSource) Status() health.Status { return health.Status{State: health.Connected} }
func (blockedSource) Degraded() error       { return errors.New("broker blocks publishing") }

// lagSource is a Connected LagSource whose program is 3677 items behind.
type lagSource struct{}

func (lagSource) Status() health.Status { return health.Status{State: health.Connected} }
func (lagSource) Lag() health.Lag {
	return health.Lag{Waiting: 3677, Oldest: 183500 * time.Millisecond}
}
