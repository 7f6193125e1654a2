package health_test

import (
	"fmt"

	"github.com/redial-go/redial/health"
)

func ExampleRegistry() {
	var reg health.Registry
	state := health.Backoff
	reg.Add("postgres", health.SourceFunc(func() health.Status {
		return health.Status{Name: "postgres", State: state}
	}), health.SourceOptions{Critical: true})

	fmt.Println(reg.Ready(), reg.Live()) // retrying: not ready, still live
	state = health.Connected
	fmt.Println(reg.Ready(), reg.Live())
	// Output:
	// false true
	// true true
}
