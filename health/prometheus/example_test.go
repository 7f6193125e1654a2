package prometheus_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/redial-go/redial/health"
	redialprom "github.com/redial-go/redial/health/prometheus"
)

func Example() {
	var reg health.Registry
	reg.Add("orders-db", health.SourceFunc(func() health.Status {
		return health.Status{State: health.Connected, Connects: 3, Failures: 2}
	}), health.SourceOptions{Critical: true})

	c, err := redialprom.New(&reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	metrics := prometheus.NewRegistry()
	metrics.MustRegister(c)
	h := promhttp.HandlerFor(metrics, promhttp.HandlerOpts{})

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(line, "redial_up") || strings.HasPrefix(line, "redial_connects") || strings.HasPrefix(line, "redial_connect_failures") {
			fmt.Println(line)
		}
	}
	// Output:
	// redial_connect_failures_total{name="orders-db"} 2
	// redial_connects_total{name="orders-db"} 3
	// redial_up{name="orders-db"} 1
}
