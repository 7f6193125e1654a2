package otel_test

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/redial-go/redial/health"
	redialotel "github.com/redial-go/redial/health/otel"
)

// Example exports a Registry through the OpenTelemetry SDK; a program would
// give the MeterProvider a periodic reader and an exporter instead.
func Example() {
	var reg health.Registry
	reg.Add("orders-db", health.SourceFunc(func() health.Status {
		return health.Status{State: health.Connected, Connects: 3, Failures: 2}
	}), health.SourceOptions{Critical: true})

	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer provider.Shutdown(context.Background())
	m, err := redialotel.New(&reg, provider.Meter("github.com/redial-go/redial/health/otel"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Unregister()

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		fmt.Println(err)
		return
	}
	for _, metric := range rm.ScopeMetrics[0].Metrics {
		switch d := metric.Data.(type) {
		case metricdata.Gauge[int64]:
			if metric.Name == "redial.connection.up" {
				fmt.Println(metric.Name, metric.Unit, d.DataPoints[0].Attributes.Encoded(attribute.DefaultEncoder()), d.DataPoints[0].Value)
			}
		case metricdata.Sum[int64]:
			fmt.Println(metric.Name, metric.Unit, d.DataPoints[0].Attributes.Encoded(attribute.DefaultEncoder()), d.DataPoints[0].Value)
		}
	}
	// Output:
	// redial.connection.up 1 redial.name=orders-db 1
	// redial.connection.connects {connection} redial.name=orders-db 3
	// redial.connection.failures {attempt} redial.name=orders-db 2
}
