package health_test

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
)

// alarmed is a Connected DegradedSource whose reason a test sets.
type alarmed struct{ why atomic.Pointer[error] }

func (*alarmed) Status() health.Status { return health.Status{State: health.Connected} }
func (a *alarmed) Degraded() error {
	if p := a.why.Load(); p != nil {
		return *p
	}
	return nil
}
func (a *alarmed) set(err error) { a.why.Store(&err) }

// TestDegradedSourceIsNotReady: a critical source that is Connected but
// degraded makes the program not ready, and live; once it is not degraded
// the program is ready again; a source that is not critical does not count.
func TestDegradedSourceIsNotReady(t *testing.T) {
	var r health.Registry
	broker := &alarmed{}
	r.Add("broker", broker, health.SourceOptions{Critical: true})
	assert.True(t, r.Ready(), "not degraded")

	blocked := errors.New("broker blocks publishing: low on memory")
	broker.set(blocked)
	es := r.Entries()
	require.Len(t, es, 1)
	assert.Equal(t, blocked, es[0].Degraded)
	assert.False(t, es.Ready(), "degraded")
	assert.True(t, es.Live(), "degraded is no reason to restart")

	broker.set(nil)
	assert.True(t, r.Ready(), "the alarm cleared")

	broker.set(blocked)
	r.Add("broker", broker, health.SourceOptions{})
	assert.True(t, r.Ready(), "a source that is not critical does not count")
	assert.Equal(t, blocked, r.Entries()[0].Degraded, "it still shows")
}
