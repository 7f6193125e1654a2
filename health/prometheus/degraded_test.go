package prometheus_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	redialprom "github.com/redial-go/redial/health/prometheus"
)

// blocked is a Connected DegradedSource.
type blocked struct{}

func (blocked) Status() health.Status { return health.Status{State: health.Connected} }
func (blocked) Degraded() error       { return errors.New("broker blocks publishing") }

// TestDegradedSeries: a degraded source exports 1, any other source 0.
func TestDegradedSeries(t *testing.T) {
	var reg health.Registry
	reg.Add("broker", blocked{}, health.SourceOptions{Critical: true})
	reg.Add("db", health.SourceFunc(func() health.Status { return health.Status{State: health.Connected} }), health.SourceOptions{Critical: true})
	c, err := redialprom.New(&reg)
	require.NoError(t, err)
	want := `
# HELP redial_degraded Whether the source is connected but unable to serve (1), such as a broker blocking publishing, or not (0).
# TYPE redial_degraded gauge
redial_degraded{name="broker"} 1
redial_degraded{name="db"} 0
`
	assert.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want), "redial_degraded"))
	problems, err := testutil.CollectAndLint(c)
	require.NoError(t, err)
	assert.Empty(t, problems)
}
