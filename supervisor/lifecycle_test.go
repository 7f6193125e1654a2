package supervisor_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

var errRefused = errors.New("connection refused")

func backoffConfig(base, cap time.Duration) backoff.Config {
	return backoff.Config{Strategy: backoff.Exponential, Base: base, Cap: cap}
}

func TestFirstAttemptIsImmediate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		t0 := time.Now()
		r := start(t, f, supervisor.Options[*conn]{})
		synctest.Wait()
		starts, _, _, _ := f.snapshot()
		require.Len(t, starts, 1)
		assert.Equal(t, t0, starts[0])
		assert.Equal(t, health.Connected, r.Status().State)
		assert.NoError(t, r.stop())
	})
}

func TestFiveFailuresThenConnectedWaitsAreDecorrelated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base, cap := time.Second, time.Minute
		f := &fake{results: errs(5, errRefused), latency: 100 * time.Millisecond}
		s, err := supervisor.New(f, supervisor.Options[*conn]{Settings: supervisor.Settings{Backoff: backoff.Config{Base: base, Cap: cap, Seed: 5}}})
		require.NoError(t, err)
		rec := testkit.Record(s)
		synctest.Wait()
		var planned []time.Time // NextAttempt seen in each Backoff
		ch, unsub := s.Subscribe()
		defer unsub()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		for st := range ch {
			if st.State == health.Backoff {
				planned = append(planned, st.NextAttempt)
			}
			if st.State == health.Connected {
				break
			}
		}
		cancel()
		require.NoError(t, <-done)

		B, C, K, I := health.Backoff, health.Connecting, health.Connected, health.Idle
		assert.Equal(t, []health.State{I, C, B, C, B, C, B, C, B, C, B, C, K, health.Stopped}, rec.Stop())

		starts, ends, open, _ := f.snapshot()
		require.Len(t, starts, 6)
		require.Len(t, planned, 5)
		prev := base
		for i := range 5 {
			wait := starts[i+1].Sub(ends[i])
			assert.GreaterOrEqual(t, wait, base, "wait %d", i)
			assert.LessOrEqual(t, wait, min(cap, 3*prev), "wait %d", i)
			assert.Equal(t, planned[i], starts[i+1], "NextAttempt %d tells when the attempt happens", i)
			prev = wait
		}
		assert.Zero(t, open, "the connection is closed when Run returns")
		assert.Equal(t, uint64(1), s.Status().Connects)
	})
}

func TestFlappingKeepsBackoffGrowing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		o := exponential(time.Second, time.Minute)
		o.StableAfter = 30 * time.Second
		r := start(t, f, o)
		var waits []time.Duration
		for range 5 {
			r.untilConnected(t)
			time.Sleep(time.Second) // the connection lives 1s
			f.last().broken <- errors.New("reset by peer")
			synctest.Wait()
			st := r.Status()
			require.Equal(t, health.Backoff, st.State)
			waits = append(waits, st.NextAttempt.Sub(st.Since))
		}
		assert.Equal(t, []time.Duration{1e9, 2e9, 4e9, 8e9, 16e9}, waits)
		assert.NoError(t, r.stop())
	})
}

func TestStableConnectionResetsBackoffAndFirstRetryIsBelowBase(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := time.Second
		f := &fake{results: errs(4, errRefused)} // grow the backoff to 8s first
		o := supervisor.Options[*conn]{Settings: supervisor.Settings{Backoff: backoff.Config{Base: base, Cap: time.Minute, Seed: 11}, StableAfter: 30 * time.Second}}
		r := start(t, f, o)
		distinct := map[time.Duration]bool{}
		for i := range 20 {
			r.untilConnected(t)
			time.Sleep(31 * time.Second) // lived longer than StableAfter
			f.last().broken <- errors.New("server restarted")
			synctest.Wait()
			st := r.Status()
			require.Equal(t, health.Backoff, st.State)
			wait := st.NextAttempt.Sub(st.Since)
			assert.GreaterOrEqual(t, wait, time.Duration(0), "loss %d", i)
			assert.Less(t, wait, base, "loss %d: the first retry after a stable connection waits rand[0, Base)", i)
			distinct[wait] = true
		}
		assert.Greater(t, len(distinct), 15, "the first retry is jittered, not fixed")
		assert.NoError(t, r.stop())
	})
}

func TestStableLossThenFailureStartsAtBase(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{errRefused, errRefused, errRefused, nil, errRefused}}
		o := exponential(time.Second, time.Minute)
		r := start(t, f, o)
		synctest.Wait()
		time.Sleep(7 * time.Second) // 1s + 2s + 4s of backoff: connected
		synctest.Wait()
		require.Equal(t, health.Connected, r.Status().State)
		time.Sleep(31 * time.Second)
		f.last().broken <- errors.New("gone")
		synctest.Wait()
		time.Sleep(time.Until(r.Status().NextAttempt))
		synctest.Wait()
		st := r.Status() // the attempt after the loss failed
		require.Equal(t, health.Backoff, st.State)
		assert.Equal(t, time.Second, st.NextAttempt.Sub(st.Since), "the backoff was reset to Base, not 8s")
		assert.NoError(t, r.stop())
	})
}
