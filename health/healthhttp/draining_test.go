package healthhttp_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
)

// drainingDB is a Connected DrainingSource that drains.
type drainingDB struct{}

func (drainingDB) Status() health.Status { return health.Status{State: health.Connected} }
func (drainingDB) Draining() bool        { return true }

// TestProbeBodySaysDraining: a Connected source that drains makes the
// program not ready (503) yet live, and the body says draining.
func TestProbeBodySaysDraining(t *testing.T) {
	var r health.Registry
	r.Add("db", drainingDB{}, health.SourceOptions{Critical: true})
	code, body, _ := get(t, healthhttp.ReadyHandler(&r), "/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	src := body["sources"].([]any)[0].(map[string]any)
	assert.Equal(t, "connected", src["state"])
	assert.Equal(t, true, src["draining"])
	code, _, _ = get(t, healthhttp.LiveHandler(&r), "/livez")
	assert.Equal(t, http.StatusOK, code, "draining is no reason to restart")
	assert.True(t, r.Entries()[0].Draining)
}
