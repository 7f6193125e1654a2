package supervisor_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// ejectOptions eject after 3 failures for [5s, 10s], doubling up to 40s.
func ejectOptions(prefer bool) supervisor.Options[*conn] {
	o := failoverOptions(nil)
	o.EjectAfter, o.EjectBase, o.EjectCap, o.PreferFirst = 3, 10*time.Second, 40*time.Second, prefer
	return o
}

// churn loses the live connection and waits until the next one, n times;
// it returns the replicas of every attempt since it began.
func churn(t *testing.T, s *running, r *replicas, n int) []call {
	t.Helper()
	from := len(r.history())
	for range n {
		live, err := s.Conn(t.Context())
		require.NoError(t, err)
		s.Invalidate(live, errors.New("connection reset"))
		synctest.Wait()
		s.untilConnected(t)
	}
	return r.history()[from:]
}

func attemptsOn(calls []call, i int) (n int) {
	for _, c := range calls {
		if c.i == i {
			n++
		}
	}
	return n
}

// TestAReplicaThatKeepsFailingIsEjectedThenProbed: a refuses; after its
// third failure it is ejected, skipped until its ejection ends, then
// probed: a failure ejects it again for longer, a connection heals it.
func TestAReplicaThatKeepsFailingIsEjectedThenProbed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReplicas("a", "b", "c")
		r.set(0, errRefused)
		s := start(t, r, ejectOptions(false))
		s.untilConnected(t)
		for attemptsOn(r.history(), 0) < 3 {
			churn(t, s, r, 1)
		}
		third := r.history()[len(r.history())-1].at
		eps := s.Endpoints()
		require.Len(t, eps, 3)
		a := eps[0]
		require.Equal(t, health.EndpointEjected, a.State, "%+v", eps)
		assert.Equal(t, 3, a.ConsecutiveFailures)
		assert.Equal(t, "a", a.Name)
		for _, e := range eps[1:] {
			assert.Equal(t, health.EndpointHealthy, e.State)
		}
		first := a.EjectedUntil.Sub(third)
		assert.GreaterOrEqual(t, first, 5*time.Second)
		assert.LessOrEqual(t, first, 10*time.Second)

		calls := churn(t, s, r, 6) // no time passes: a is skipped
		assert.Zero(t, attemptsOn(calls, 0), "ejected: %v", calls)
		time.Sleep(time.Until(a.EjectedUntil))
		assert.Equal(t, health.EndpointProbing, s.Endpoints()[0].State)
		var probe []call
		for attemptsOn(probe, 0) == 0 {
			probe = append(probe, churn(t, s, r, 1)...)
		}
		a = s.Endpoints()[0]
		require.Equal(t, health.EndpointEjected, a.State, "the probe failed")
		assert.Equal(t, 2, a.Ejections)

		r.set(0, nil)
		time.Sleep(time.Until(a.EjectedUntil))
		for s.Status().Endpoint != "a" {
			churn(t, s, r, 1)
		}
		assert.Equal(t, health.EndpointStatus{Name: "a", State: health.EndpointHealthy, EjectedUntil: time.Time{}}, s.Endpoints()[0])
		assert.NoError(t, s.stop())
	})
}

// TestNeverEveryReplicaIsEjected: all three refuse for two minutes; at
// every wait at least one replica is not ejected and every replica is
// still tried, a round at a time.
func TestNeverEveryReplicaIsEjected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReplicas("a", "b", "c")
		for i := range 3 {
			r.set(i, errRefused)
		}
		t0 := time.Now()
		s := start(t, r, ejectOptions(false))
		for time.Since(t0) < 2*time.Minute {
			synctest.Wait()
			st := s.Status()
			require.Equal(t, health.Backoff, st.State)
			ejected := 0
			for _, e := range s.Endpoints() {
				if e.State == health.EndpointEjected {
					ejected++
				}
			}
			assert.Less(t, ejected, 3, "at %v", time.Since(t0))
			time.Sleep(time.Until(st.NextAttempt))
		}
		h := r.history()
		for i := range 3 {
			assert.Greater(t, attemptsOn(h[len(h)/2:], i), 1, "replica %d still tried in the second minute", i)
		}
		assert.NoError(t, s.stop())
	})
}

// TestPreferFirstFailsBack: a refuses at first, so b serves; a comes
// back, and once a's fail-back time came (a jittered EjectBase: it was
// not ejected), b's connection is replaced by one on a. While a still
// refuses, the fail-back fails over to b again at once.
func TestPreferFirstFailsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReplicas("a", "b", "c")
		r.set(0, errRefused)
		s := start(t, r, ejectOptions(true))
		s.untilConnected(t)
		require.Equal(t, "b", s.Status().Endpoint)
		assert.True(t, s.Endpoints()[0].Preferred)
		t0 := time.Now()
		time.Sleep(10 * time.Second) // the fail-back: within [5s, 10s]
		synctest.Wait()
		s.untilConnected(t)
		h := r.history()
		require.Len(t, h, 4, "a, b, a (the fail-back, refused), b: %v", h)
		assert.Equal(t, 0, h[2].i)
		assert.GreaterOrEqual(t, h[2].at.Sub(t0), 5*time.Second)
		assert.Less(t, h[3].at.Sub(h[2].at), 100*time.Millisecond, "back to b within FailoverSpread")
		assert.Equal(t, "b", s.Status().Endpoint)

		r.set(0, nil)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		s.untilConnected(t)
		st := s.Status()
		assert.Equal(t, "a", st.Endpoint, "failed back")
		assert.Equal(t, health.Connected, st.State)
		assert.Equal(t, 0, r.history()[len(r.history())-1].i)
		assert.Equal(t, health.EndpointHealthy, s.Endpoints()[0].State)
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Len(t, r.history(), 5, "on a: no more fail-backs")
		assert.NoError(t, s.stop())
	})
}

// TestAHintRestsItsReplicaWithoutEjectingIt: a answers every attempt
// with a hint: it rests, as before, and is never ejected.
func TestAHintRestsItsReplicaWithoutEjectingIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReplicas("a", "b")
		r.set(0, backoff.RetryAfter(errors.New("503"), 2*time.Second))
		s := start(t, r, ejectOptions(false))
		s.untilConnected(t)
		for range 4 {
			time.Sleep(3 * time.Second)
			churn(t, s, r, 2)
		}
		h := r.history()
		assert.GreaterOrEqual(t, attemptsOn(h, 0), 4)
		a := s.Endpoints()[0]
		assert.Equal(t, health.EndpointHealthy, a.State)
		assert.Zero(t, a.ConsecutiveFailures, "a hinted failure is not counted")
		assert.NoError(t, s.stop())
	})
}

// A Supervisor is a health.EndpointSource: a Registry reads its endpoints.
var _ health.EndpointSource = (*supervisor.Supervisor[*conn])(nil)

// TestOneEndpointHasNoEndpointHealth: a plain Connector (one endpoint)
// shows none, and is never ejected.
func TestOneEndpointHasNoEndpointHealth(t *testing.T) {
	s, err := supervisor.New[*conn](&fake{}, supervisor.Options[*conn]{})
	require.NoError(t, err)
	assert.Nil(t, s.Endpoints())
}
