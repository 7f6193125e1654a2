package prometheus_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	redialprom "github.com/redial-go/redial/health/prometheus"
)

// replicated is a source with three endpoints, one ejected for 30s more,
// one named with bytes that are not UTF-8.
type replicated struct{ now time.Time }

func (replicated) Status() health.Status { return health.Status{State: health.Connected} }
func (r replicated) Endpoints() []health.EndpointStatus {
	return []health.EndpointStatus{
		{Name: "a:1", State: health.EndpointEjected, ConsecutiveFailures: 3, Ejections: 1, EjectedUntil: r.now.Add(30 * time.Second)},
		{Name: "b:1"},
		{Name: "c\xff", State: health.EndpointProbing, ConsecutiveFailures: 4},
	}
}

// TestEndpointMetrics: each endpoint of a source with several has its
// state, consecutive failures and ejection left, labelled; a source with
// one endpoint has none.
func TestEndpointMetrics(t *testing.T) {
	synctest.Test(t, endpointMetrics) // time stands still: 30s left exactly
}

func endpointMetrics(t *testing.T) {
	var reg health.Registry
	now := time.Now()
	reg.Add("feed", replicated{now}, health.SourceOptions{})
	reg.Add("db", health.SourceFunc(func() health.Status { return health.Status{State: health.Connected} }), health.SourceOptions{})
	c, err := redialprom.New(&reg)
	require.NoError(t, err)
	assert.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(`
# HELP redial_endpoint_consecutive_failures Failed attempts in a row on an endpoint, with several endpoints.
# TYPE redial_endpoint_consecutive_failures gauge
redial_endpoint_consecutive_failures{endpoint="a:1",name="feed"} 3
redial_endpoint_consecutive_failures{endpoint="b:1",name="feed"} 0
redial_endpoint_consecutive_failures{endpoint="c`+"\uFFFD"+`",name="feed"} 4
# HELP redial_endpoint_ejected_seconds Seconds until an endpoint's ejection ends; 0 when it is not ejected.
# TYPE redial_endpoint_ejected_seconds gauge
redial_endpoint_ejected_seconds{endpoint="a:1",name="feed"} 30
redial_endpoint_ejected_seconds{endpoint="b:1",name="feed"} 0
redial_endpoint_ejected_seconds{endpoint="c`+"\uFFFD"+`",name="feed"} 0
# HELP redial_endpoint_state An endpoint's health, with several endpoints: 1 for its state (healthy, ejected, probing), 0 for the others.
# TYPE redial_endpoint_state gauge
redial_endpoint_state{endpoint="a:1",name="feed",state="ejected"} 1
redial_endpoint_state{endpoint="a:1",name="feed",state="healthy"} 0
redial_endpoint_state{endpoint="a:1",name="feed",state="probing"} 0
redial_endpoint_state{endpoint="b:1",name="feed",state="ejected"} 0
redial_endpoint_state{endpoint="b:1",name="feed",state="healthy"} 1
redial_endpoint_state{endpoint="b:1",name="feed",state="probing"} 0
redial_endpoint_state{endpoint="c`+"\uFFFD"+`",name="feed",state="ejected"} 0
redial_endpoint_state{endpoint="c`+"\uFFFD"+`",name="feed",state="healthy"} 0
redial_endpoint_state{endpoint="c`+"\uFFFD"+`",name="feed",state="probing"} 1
`), "redial_endpoint_state", "redial_endpoint_consecutive_failures", "redial_endpoint_ejected_seconds"))
}
