package health_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
)

// fixed is a Source whose Status a test sets.
type fixed struct{ v atomic.Pointer[health.Status] }

func source(st health.State) *fixed {
	f := &fixed{}
	f.set(st, nil)
	return f
}

func (f *fixed) set(st health.State, err error) {
	f.v.Store(&health.Status{State: st, Err: err, Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
}
func (f *fixed) Status() health.Status { return *f.v.Load() }

func TestReadyFollowsCriticalSourcesOnly(t *testing.T) {
	var r health.Registry
	assert.True(t, r.Ready(), "an empty registry is ready")
	db, cache := source(health.Connecting), source(health.Backoff)
	r.Add("db", db, health.SourceOptions{Critical: true})
	r.Add("cache", cache, health.SourceOptions{})
	assert.False(t, r.Ready())
	db.set(health.Connected, nil)
	assert.True(t, r.Ready(), "a non-critical source in Backoff does not make it unready")
	db.set(health.Backoff, nil)
	assert.False(t, r.Ready())
}

func TestLiveOnlyFailsOnCriticalFailed(t *testing.T) {
	var r health.Registry
	db, cache := source(health.Backoff), source(health.Failed)
	r.Add("db", db, health.SourceOptions{Critical: true})
	r.Add("cache", cache, health.SourceOptions{})
	assert.True(t, r.Live())
	for _, st := range []health.State{health.Idle, health.Connecting, health.Connected, health.Backoff, health.Stopped} {
		db.set(st, nil)
		assert.True(t, r.Live(), "%v", st)
	}
	db.set(health.Failed, nil)
	assert.False(t, r.Live())
}

func TestRegistryAddReplaceRemoveNil(t *testing.T) {
	var r health.Registry
	r.Add("a", source(health.Backoff), health.SourceOptions{Critical: true})
	r.Add("a", source(health.Connected), health.SourceOptions{Critical: true})
	es := r.Entries()
	require.Len(t, es, 1, "adding a name again replaces it")
	assert.Equal(t, health.Connected, es[0].Status.State)

	r.Add("nil", nil, health.SourceOptions{Critical: true})
	assert.False(t, r.Ready(), "a nil critical source is never ready")
	es = r.Entries()
	require.Len(t, es, 2)
	assert.EqualError(t, es[1].Status.Err, "nil source")

	assert.True(t, r.Remove("nil"))
	assert.False(t, r.Remove("nil"))
	assert.True(t, r.Ready())
}

// TestEntriesIsOneReading: Entries carries each source as added, so a
// reader finds its History, and judges readiness and liveness from the
// same reading it shows.
func TestEntriesIsOneReading(t *testing.T) {
	var r health.Registry
	db := source(health.Connected)
	r.Add("db", db, health.SourceOptions{Critical: true})
	r.Add("cache", source(health.Failed), health.SourceOptions{})
	es := r.Entries()
	require.Len(t, es, 2)
	assert.Same(t, db, es[0].Source)
	assert.True(t, es.Ready())
	assert.True(t, es.Live(), "a failed source that is not critical does not matter")
	db.set(health.Failed, nil)
	assert.True(t, es.Ready(), "a reading does not change")
	assert.False(t, r.Entries().Ready())
	assert.False(t, r.Entries().Live())
}
