package supervisor_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// replicas is an in-memory Connector with Endpoints: replica i answers
// with down[i] (nil: it connects). It records which replica each attempt
// went to, and when.
type replicas struct {
	mu    sync.Mutex
	names []string
	down  []error
	calls []call
	conns map[*conn]int
}

type call struct {
	at time.Time
	i  int
}

func newReplicas(names ...string) *replicas {
	return &replicas{names: names, down: make([]error, len(names)), conns: map[*conn]int{}}
}

func (r *replicas) Endpoints() []string { return r.names }

func (r *replicas) ConnectTo(ctx context.Context, i int) (*conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call{time.Now(), i})
	if err := r.down[i]; err != nil {
		return nil, err
	}
	c := &conn{id: len(r.calls), broken: make(chan error, 1)}
	r.conns[c] = i
	return c, nil
}

func (r *replicas) Connect(context.Context) (*conn, error) { panic("the supervisor calls ConnectTo") }
func (r *replicas) Close(*conn) error                      { return nil }

func (r *replicas) set(i int, err error) {
	r.mu.Lock()
	r.down[i] = err
	r.mu.Unlock()
}

func (r *replicas) history() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]call(nil), r.calls...)
}

func failoverOptions(logs *bytes.Buffer) supervisor.Options[*conn] {
	o := supervisor.Options[*conn]{
		Settings: supervisor.Settings{
			Name:           "svc",
			Backoff:        backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: time.Minute},
			FailoverSpread: 100 * time.Millisecond,
		},
	}
	if logs != nil {
		o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return o
}

// TestLostReplicaFailsOverAtOnce: connected to replica a, it is lost; the
// next attempt goes to b within FailoverSpread, not after the backoff.
func TestLostReplicaFailsOverAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReplicas("a", "b", "c")
		var logs bytes.Buffer
		s := start(t, r, failoverOptions(&logs))
		synctest.Wait()
		st := s.Status()
		require.Equal(t, health.Connected, st.State)
		assert.Equal(t, "a", st.Endpoint, "the first attempt goes to endpoint 0")

		r.set(0, errRefused)
		lostAt := time.Now()
		live, err := s.Conn(t.Context())
		require.NoError(t, err)
		s.Invalidate(live, errors.New("connection reset"))
		synctest.Wait()
		st = s.Status()
		require.Equal(t, health.Backoff, st.State)
		assert.Less(t, st.NextAttempt.Sub(lostAt), 100*time.Millisecond, "within rand[0, FailoverSpread)")
		time.Sleep(time.Until(st.NextAttempt))
		synctest.Wait()
		st = s.Status()
		assert.Equal(t, health.Connected, st.State)
		assert.Equal(t, "b", st.Endpoint)
		h := r.history()
		assert.Equal(t, 1, h[len(h)-1].i)
		assert.Contains(t, logs.String(), "endpoint=b")
		assert.NoError(t, s.stop())
	})
}

// TestBackoffAdvancesOncePerRoundOfReplicas: every replica refuses; the
// attempts go a, b, c within the spread, then wait 1s, then a, b, c,
// then 2s: the backoff counts rounds, not attempts.
func TestBackoffAdvancesOncePerRoundOfReplicas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReplicas("a", "b", "c")
		for i := range 3 {
			r.set(i, errRefused)
		}
		t0 := time.Now()
		s := start(t, r, failoverOptions(nil))
		time.Sleep(5 * time.Second) // two full rounds and their waits: 3*0.1 + 1 + 3*0.1 + 2 < 5
		synctest.Wait()
		h := r.history()
		require.GreaterOrEqual(t, len(h), 9)
		for k, c := range h[:9] {
			assert.Equal(t, k%3, c.i, "attempt %d goes to replica %d", k, k%3)
		}
		gap := func(k int) time.Duration { return h[k].at.Sub(h[k-1].at) }
		assert.Equal(t, t0, h[0].at, "the first attempt is immediate")
		for _, k := range []int{1, 2, 4, 5, 7, 8} {
			assert.Less(t, gap(k), 100*time.Millisecond, "attempt %d: a failover within the spread", k)
		}
		assert.Equal(t, time.Second, gap(3), "the end of round 1: the backoff's first delay")
		assert.Equal(t, 2*time.Second, gap(6), "the end of round 2: the backoff's second delay")
		assert.Equal(t, 9, s.Status().ConsecutiveFailures, "consecutive failed attempts still count each attempt")
		assert.NoError(t, s.stop())
	})
}

// TestOverloadHintRestsOnlyItsReplica: a answers 503 Retry-After 30s; b is
// tried at once, and a is not tried again until its hint has passed.
func TestOverloadHintRestsOnlyItsReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReplicas("a", "b")
		r.set(0, backoff.RetryAfter(errors.New("503"), 30*time.Second))
		r.set(1, errRefused)
		t0 := time.Now()
		s := start(t, r, failoverOptions(nil))
		time.Sleep(20 * time.Second)
		synctest.Wait()
		h := r.history()
		require.GreaterOrEqual(t, len(h), 3)
		assert.Equal(t, 1, h[1].i, "b at once")
		assert.Less(t, h[1].at.Sub(t0), 100*time.Millisecond)
		for _, c := range h[1:] {
			assert.Equal(t, 1, c.i, "a rests for 30s: only b is tried (at %v)", c.at.Sub(t0))
		}
		time.Sleep(20 * time.Second)
		synctest.Wait()
		h = r.history()
		var again time.Duration
		for _, c := range h[1:] {
			if c.i == 0 {
				again = c.at.Sub(t0)
				break
			}
		}
		assert.GreaterOrEqual(t, again, 30*time.Second, "a again once its hint passed")
		assert.NoError(t, s.stop())
	})
}

// TestRoundWhereEveryReplicaRestsWaitsForTheEarliest: both answer with a
// hint; the next attempt waits for the earliest rest to end, on that
// replica.
func TestRoundWhereEveryReplicaRestsWaitsForTheEarliest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReplicas("a", "b")
		r.set(0, backoff.RetryAfter(errors.New("503"), 20*time.Second))
		r.set(1, backoff.RetryAfter(errors.New("503"), 7*time.Second))
		t0 := time.Now()
		s := start(t, r, failoverOptions(nil))
		time.Sleep(10 * time.Second)
		synctest.Wait()
		h := r.history()
		require.Len(t, h, 3, "a, b, then b again when its rest ended: %v", h)
		assert.Equal(t, 1, h[2].i)
		assert.Equal(t, 7*time.Second, h[2].at.Sub(h[1].at), "the earliest rest, b's 7s")
		assert.Less(t, h[1].at.Sub(t0), 100*time.Millisecond)
		assert.NoError(t, s.stop())
	})
}

// TestEndpointsNeedOne: a connector with no endpoint is a bad option.
func TestEndpointsNeedOne(t *testing.T) {
	_, err := supervisor.New[*conn](newReplicas(), supervisor.Options[*conn]{})
	assert.EqualError(t, err, "supervisor: Connector: Endpoints() returned none")
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
	_, err = supervisor.New[*conn](newReplicas("a"), supervisor.Options[*conn]{Settings: supervisor.Settings{FailoverSpread: -time.Second}})
	assert.EqualError(t, err, "supervisor: FailoverSpread -1s: negative")
	assert.True(t, strings.HasPrefix(err.Error(), "supervisor: "))
}
