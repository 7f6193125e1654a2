package health_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
)

// feed is a LagSource.
type feed struct{ lag health.Lag }

func (feed) Status() health.Status { return health.Status{State: health.Connected} }
func (f feed) Lag() health.Lag     { return f.lag }

// lagging is a Connected source whose program has let n items wait, the
// oldest for oldest.
func lagging(n int, oldest time.Duration) health.Source {
	return feed{health.Lag{Waiting: n, Oldest: oldest}}
}

// TestMaxLagDegradesReadiness: a critical LagSource whose program let an
// item wait longer than its MaxLag makes the program not ready, though the
// source is Connected; without MaxLag, or when not critical, lag does not
// count; a negative MaxLag is a mistake that shows.
func TestMaxLagDegradesReadiness(t *testing.T) {
	var r health.Registry
	r.Add("feed", lagging(3677, 183*time.Second), health.SourceOptions{Critical: true})
	assert.True(t, r.Ready(), "lag counts only with MaxLag")

	r.Add("feed", lagging(3677, 183*time.Second), health.SourceOptions{Critical: true, MaxLag: 30 * time.Second})
	es := r.Entries()
	assert.False(t, es.Ready(), "183s behind a MaxLag of 30s")
	assert.True(t, es.Live(), "lag is no reason to restart")
	require.Len(t, es, 1)
	assert.True(t, es[0].Lagging())
	assert.Equal(t, health.Lag{Waiting: 3677, Oldest: 183 * time.Second}, es[0].Lag)

	r.Add("feed", lagging(2, time.Second), health.SourceOptions{Critical: true, MaxLag: 30 * time.Second})
	assert.True(t, r.Ready(), "within MaxLag")

	r.Add("feed", lagging(3677, 183*time.Second), health.SourceOptions{MaxLag: 30 * time.Second})
	assert.True(t, r.Ready(), "a source that is not critical does not count")

	r.Add("feed", lagging(0, 0), health.SourceOptions{Critical: true, MaxLag: -time.Second})
	es = r.Entries()
	assert.False(t, es.Ready())
	assert.EqualError(t, es[0].Status.Err, "health: MaxLag -1s: negative")
}
