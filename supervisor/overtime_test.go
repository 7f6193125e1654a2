package supervisor_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
)

func TestStatusOverTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Attempts 2 and 3 fail: the first outage lasts 1s + 2s + 4s of backoff.
		f := &fake{results: []error{nil, errRefused, errRefused}}
		r := start(t, f, exponential(time.Second, time.Minute))
		r.untilConnected(t)
		st := r.Status()
		assert.Zero(t, st.LongestOutage)
		assert.Zero(t, st.ReconnectsLastMinute, "the first connect is not a reconnect")
		assert.Zero(t, st.Failures)

		time.Sleep(10 * time.Second)
		lostAt := time.Now()
		f.last().broken <- errors.New("reset")
		synctest.Wait()
		assert.Equal(t, lostAt, r.Status().LastFailure, "a loss is a failure")
		time.Sleep(2500 * time.Millisecond) // mid-outage: the current outage counts
		st = r.Status()
		assert.Equal(t, 2500*time.Millisecond, st.LongestOutage)
		r.untilConnected(t)
		st = r.Status()
		assert.Equal(t, 7*time.Second, st.LongestOutage, "1s + 2s + 4s")
		assert.Equal(t, uint64(2), st.Failures)
		assert.Equal(t, 1, st.ReconnectsLastMinute)
		assert.Equal(t, lostAt.Add(3*time.Second), st.LastFailure, "the second failed attempt, 1s + 2s after the loss")

		// A short outage does not lower the longest one; reconnects add up.
		time.Sleep(31 * time.Second)
		f.last().broken <- errors.New("reset")
		r.untilConnected(t)
		st = r.Status()
		assert.Equal(t, 7*time.Second, st.LongestOutage)
		assert.Equal(t, 2, st.ReconnectsLastMinute)

		time.Sleep(2 * time.Minute)
		assert.Zero(t, r.Status().ReconnectsLastMinute, "a minute later they are gone from the window")
		require.NoError(t, r.stop())
	})
}

func TestStatusUptimeAndWait(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	up := health.Status{State: health.Connected, Since: now.Add(-time.Minute)}
	assert.Equal(t, time.Minute, up.Uptime(now))
	assert.Zero(t, up.RetryIn(now))
	down := health.Status{State: health.Backoff, Since: now, NextAttempt: now.Add(3 * time.Second)}
	assert.Zero(t, down.Uptime(now))
	assert.Equal(t, 3*time.Second, down.RetryIn(now))
	assert.Zero(t, down.RetryIn(now.Add(time.Hour)), "never negative")
	assert.Zero(t, health.Status{State: health.Connected}.Uptime(now), "no Since, no uptime")
}

func TestOutageEndsWhenTheSupervisorStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{nil, errRefused, errRefused, errRefused}}
		r := start(t, f, exponential(time.Second, time.Minute))
		r.untilConnected(t)
		f.last().broken <- errors.New("reset")
		synctest.Wait()
		time.Sleep(2 * time.Second)
		require.NoError(t, r.stop())
		frozen := r.Status().LongestOutage
		assert.Equal(t, 2*time.Second, frozen)
		time.Sleep(time.Hour)
		assert.Equal(t, frozen, r.Status().LongestOutage, "a stopped supervisor's outage does not grow")
	})
}
