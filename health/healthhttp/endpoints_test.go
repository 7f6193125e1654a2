package healthhttp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
)

type replicated struct{ until time.Time }

func (replicated) Status() health.Status {
	return health.Status{State: health.Connected, Endpoint: "wss://b/x"}
}
func (r replicated) Endpoints() []health.EndpointStatus {
	return []health.EndpointStatus{
		{Name: "wss://u:hunter22@a/x", State: health.EndpointEjected, Preferred: true, ConsecutiveFailures: 3, Ejections: 1, EjectedUntil: r.until},
		{Name: "wss://b/x"},
	}
}

// TestStatusPageShowsEndpoints: a source with several endpoints has one
// entry per endpoint with its state, failures in a row and, while
// ejected, when that ends; names pass the redaction again.
func TestStatusPageShowsEndpoints(t *testing.T) {
	until := time.Date(2026, 1, 2, 3, 4, 30, 0, time.UTC)
	var r health.Registry
	r.Add("feed", replicated{until}, health.SourceOptions{Critical: true})
	rec := httptest.NewRecorder()
	healthhttp.StatusPage(&r, healthhttp.StatusPageOptions{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status?format=json", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var snap struct {
		Sources []struct {
			Endpoints []struct {
				Name      string     `json:"name"`
				State     string     `json:"state"`
				Preferred bool       `json:"preferred"`
				Failures  int        `json:"consecutive_failures"`
				Until     *time.Time `json:"ejected_until"`
			} `json:"endpoints"`
		} `json:"sources"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &snap))
	require.Len(t, snap.Sources, 1)
	eps := snap.Sources[0].Endpoints
	require.Len(t, eps, 2)
	assert.Equal(t, "ejected", eps[0].State)
	assert.True(t, eps[0].Preferred)
	assert.Equal(t, 3, eps[0].Failures)
	require.NotNil(t, eps[0].Until)
	assert.True(t, until.Equal(*eps[0].Until))
	assert.NotContains(t, eps[0].Name, "hunter22")
	assert.Equal(t, "healthy", eps[1].State)
	assert.Nil(t, eps[1].Until)
	assert.NotContains(t, rec.Body.String(), "hunter22")
}
