package otel_test

import (
	"fmt"

	"go.opentelemetry.io/otel/metric/noop"

	"github.com/redial-go/redial/health"
	redialotel "github.com/redial-go/redial/health/otel"
)

func Example() {
	var reg health.Registry
	reg.Add("orders-db", health.SourceFunc(func() health.Status {
		return health.Status{State: health.Connected, Connects: 3, Failures: 2}
	}), health.SourceOptions{Critical: true})

	// A program passes a Meter of its SDK MeterProvider, for example
	// provider.Meter("github.com/redial-go/redial/health/otel"); the noop
	// one keeps this example free of the SDK.
	meter := noop.NewMeterProvider().Meter("github.com/redial-go/redial/health/otel")
	m, err := redialotel.New(&reg, meter)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Unregister()

	_, err = redialotel.New(nil, meter)
	fmt.Println(err)
	// Output:
	// otel: registry: nil
}
