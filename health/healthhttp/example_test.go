package healthhttp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
)

func Example() {
	var reg health.Registry
	state := health.Backoff
	reg.Add("postgres", health.SourceFunc(func() health.Status {
		return health.Status{Name: "postgres", State: state}
	}), health.SourceOptions{Critical: true})

	mux := http.NewServeMux()
	mux.Handle("/readyz", healthhttp.ReadyHandler(&reg))
	mux.Handle("/livez", healthhttp.LiveHandler(&reg))
	mux.Handle("/status", healthhttp.StatusPage(&reg, healthhttp.StatusPageOptions{Title: "shop"}))

	probe := func(path string) int {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code
	}
	fmt.Println(probe("/readyz"), probe("/livez"), probe("/status"))
	state = health.Connected
	fmt.Println(probe("/readyz"), probe("/livez"), probe("/status"))
	// Output:
	// 503 200 200
	// 200 200 200
}
