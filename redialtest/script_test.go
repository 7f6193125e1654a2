package redialtest_test

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
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

var errRefused = errors.New("refused")

// run starts a supervisor of s with Exponential delays (1s, 2s, 4s: a test
// can predict them) and returns it and a func that stops it and returns
// what Run returned.
func run(t *testing.T, s supervisor.Connector[*redialtest.Conn], set supervisor.Settings) (*supervisor.Supervisor[*redialtest.Conn], func() error) {
	t.Helper()
	set.Backoff = backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: 4 * time.Second}
	sup, err := supervisor.New(s, supervisor.Options[*redialtest.Conn]{Settings: set})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	return sup, func() error { cancel(); return <-done }
}

func starts(s *redialtest.Script, t0 time.Time) []time.Duration {
	var out []time.Duration
	for _, a := range s.Attempts() {
		out = append(out, a.Start.Sub(t0))
	}
	return out
}

// A supervisor runs inside a bubble with a Script: connected after the
// scripted failures, exactly when its policy says; broken and back;
// waiting a server's hint; Stopped with nothing left open or running
// (synctest.Test fails on a goroutine left in the bubble).
func TestASupervisorRunsInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := new(redialtest.Script).Fail(errRefused, errRefused, errRefused)
		t0 := time.Now()
		sup, stop := run(t, s, supervisor.Settings{})
		time.Sleep(7 * time.Second) // waits of 1s, 2s, 4s
		synctest.Wait()
		require.Equal(t, health.Connected, sup.Status().State)
		assert.Equal(t, []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second}, starts(s, t0))

		first := s.Last()
		s.Fail(backoff.RetryAfter(errRefused, 10*time.Second))
		first.Break(errors.New("reset")) // a flap: lived less than StableAfter, the backoff goes on
		synctest.Wait()
		st := sup.Status()
		require.Equal(t, health.Backoff, st.State)
		assert.Equal(t, 4*time.Second, st.NextAttempt.Sub(st.Since), "the cap")
		assert.Equal(t, 1, first.Closes())
		time.Sleep(4 * time.Second)
		synctest.Wait()
		st = sup.Status()
		require.Equal(t, health.Backoff, st.State, "the hinted failure")
		assert.Equal(t, 10*time.Second, st.NextAttempt.Sub(st.Since), "the server's hint is the wait")
		time.Sleep(10 * time.Second)
		synctest.Wait()
		require.Equal(t, health.Connected, sup.Status().State)
		assert.Equal(t, []time.Duration{0, 1, 3, 7, 11, 21}, seconds(starts(s, t0)))

		require.NoError(t, stop())
		assert.Equal(t, health.Stopped, sup.Status().State)
		assert.Zero(t, s.Open())
		assert.Equal(t, 1, s.MaxOpen())
	})
}

func seconds(ds []time.Duration) []time.Duration {
	for i := range ds {
		ds[i] /= time.Second
	}
	return ds
}

// A permanent error fails the supervisor at once; a hanging attempt ends
// at ConnectTimeout, to the nanosecond of fake time.
func TestScriptPermanentAndHang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := new(redialtest.Script).Hang().Fail(backoff.Permanent(errRefused)).HangAll()
		t0 := time.Now()
		sup, stop := run(t, s, supervisor.Settings{ConnectTimeout: 3 * time.Second})
		time.Sleep(4 * time.Second)
		synctest.Wait()
		require.Equal(t, health.Failed, sup.Status().State)
		a := s.Attempts()
		require.Len(t, a, 2)
		assert.Equal(t, 3*time.Second, a[0].End.Sub(t0))
		assert.ErrorIs(t, a[0].Err, context.DeadlineExceeded)
		assert.ErrorIs(t, sup.Err(), errRefused)
		require.ErrorIs(t, stop(), errRefused)
	})
}

// Without Watch, the supervisor learns of a break from Invalidate.
func TestScriptUnwatched(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := new(redialtest.Script)
		sup, stop := run(t, s.Unwatched(), supervisor.Settings{})
		synctest.Wait()
		c := s.Last()
		require.NotNil(t, c)
		c.Break(errRefused)
		synctest.Wait()
		assert.Equal(t, health.Connected, sup.Status().State, "nothing watches")
		sup.Invalidate(c, errRefused)
		time.Sleep(4 * time.Second)
		synctest.Wait()
		assert.Len(t, s.Attempts(), 2)
		require.NoError(t, stop())
	})
}

// Script's own rules: latency, close once, the record.
func TestScriptRecords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := new(redialtest.Script).Latency(time.Second).Fail(errRefused).Succeed()
		t0 := time.Now()
		_, err := s.Connect(t.Context())
		assert.ErrorIs(t, err, errRefused)
		c, err := s.Connect(t.Context())
		require.NoError(t, err)
		assert.Equal(t, 2, c.N)
		assert.Same(t, c, s.Last())
		a := s.Attempts()
		assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, []time.Duration{a[0].End.Sub(t0), a[1].End.Sub(t0)})
		assert.Equal(t, 1, s.Open())
		require.NoError(t, s.Close(c))
		assert.ErrorIs(t, s.Close(c), redialtest.ErrClosedTwice)
		assert.Equal(t, 2, c.Closes())
		assert.Zero(t, s.Open())

		ctx, cancel := context.WithTimeout(t.Context(), time.Second/2)
		defer cancel()
		_, err = s.Connect(ctx)
		assert.ErrorIs(t, err, context.DeadlineExceeded, "latency ends with ctx")
	})
}

// HangAll: every attempt past the queue hangs until its ConnectTimeout.
func TestScriptHangAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := new(redialtest.Script).Succeed().HangAll()
		t0 := time.Now()
		sup, stop := run(t, s, supervisor.Settings{ConnectTimeout: 3 * time.Second})
		synctest.Wait()
		s.Last().Break(errRefused)
		time.Sleep(time.Minute)
		synctest.Wait()
		a := s.Attempts()
		require.Greater(t, len(a), 3)
		for _, a := range a[1 : len(a)-1] {
			assert.Equal(t, 3*time.Second, a.End.Sub(a.Start), "attempt at %v", a.Start.Sub(t0))
			assert.ErrorIs(t, a.Err, context.DeadlineExceeded)
		}
		assert.EqualValues(t, 1, sup.Status().Connects)
		require.NoError(t, stop())
	})
}
