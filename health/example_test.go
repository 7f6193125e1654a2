package health_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/redial-go/redial/health"
)

func ExampleRegistry() {
	var reg health.Registry
	state := health.Backoff
	reg.Add("postgres", health.SourceFunc(func() health.Status {
		return health.Status{Name: "postgres", State: state}
	}), true)

	mux := http.NewServeMux()
	mux.Handle("/readyz", reg.ReadyHandler())
	mux.Handle("/livez", reg.LiveHandler())

	probe := func(path string) int {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code
	}
	fmt.Println(probe("/readyz"), probe("/livez"))
	state = health.Connected
	fmt.Println(probe("/readyz"), probe("/livez"))
	// Output:
	// 503 200
	// 200 200
}
