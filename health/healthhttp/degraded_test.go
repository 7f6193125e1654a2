package healthhttp_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
)

// blockedBroker is a Connected DegradedSource whose reason holds a secret.
type blockedBroker struct{}

func (blockedBroker) Status() health.Status { return health.Status{State: health.Connected} }
func (blockedBroker) Degraded() error {
	return errors.New("broker blocks publishing: low on memory at amqp://app:s3cr3t@rabbit:5672/")
}

// TestProbeBodySaysDegraded: a Connected source that is degraded makes the
// program not ready (503) yet live; the body says degraded, and why only
// with ?verbose=1, redacted as last_error is.
func TestProbeBodySaysDegraded(t *testing.T) {
	var r health.Registry
	r.Add("broker", blockedBroker{}, health.SourceOptions{Critical: true})
	code, body, raw := get(t, healthhttp.ReadyHandler(&r), "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	src := body["sources"].([]any)[0].(map[string]any)
	assert.Equal(t, "connected", src["state"])
	assert.Equal(t, true, src["degraded"])
	assert.NotContains(t, raw, "degraded_error", "only with ?verbose=1")

	_, body, raw = get(t, healthhttp.ReadyHandler(&r), "/readyz?verbose=1")
	src = body["sources"].([]any)[0].(map[string]any)
	assert.Contains(t, src["degraded_error"], "broker blocks publishing: low on memory")
	assert.NotContains(t, raw, "s3cr3t")

	code, _, _ = get(t, healthhttp.LiveHandler(&r), "/livez")
	assert.Equal(t, http.StatusOK, code, "degraded is no reason to restart")
}
