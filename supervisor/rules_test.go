package supervisor_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

func TestHintLengthensTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{backoff.RetryAfter(errRefused, 10*time.Second)}}
		r := start(t, f, exponential(time.Second, time.Minute))
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State)
		assert.GreaterOrEqual(t, st.NextAttempt.Sub(st.Since), 10*time.Second)
		r.untilConnected(t)
		starts, _, _, _ := f.snapshot()
		assert.Equal(t, 10*time.Second, starts[1].Sub(starts[0]))
		assert.NoError(t, r.stop())
	})
}

func TestHintNeverShortensNorSkipsTheProgression(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{
			errRefused, // 1s
			backoff.RetryAfter(errRefused, time.Millisecond), // 2s: a short hint does not shorten
			backoff.RetryAfter(errRefused, 30*time.Second),   // 30s: a long one lengthens
			errRefused, // 8s: the progression went on under the hint
			backoff.RetryAfter(errRefused, 24*time.Hour), // clamped to MaxHint
		}}
		o := exponential(time.Second, time.Minute)
		o.MaxHint = 2 * time.Minute
		r := start(t, f, o)
		r.untilConnected(t)
		starts, ends, _, _ := f.snapshot()
		var waits []time.Duration
		for i := 1; i < len(starts); i++ {
			waits = append(waits, starts[i].Sub(ends[i-1]))
		}
		assert.Equal(t, []time.Duration{1e9, 2e9, 30e9, 8e9, 120e9}, waits)
		assert.NoError(t, r.stop())
	})
}

func TestConnectTimeoutEndsAnAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{hang: true}
		o := exponential(time.Second, time.Minute)
		o.ConnectTimeout = 5 * time.Second
		t0 := time.Now()
		r := start(t, f, o)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State)
		assert.Equal(t, t0.Add(5*time.Second), st.Since)
		assert.ErrorIs(t, st.Err, context.DeadlineExceeded)
		assert.Contains(t, st.Err.Error(), "timed out after 5s")
		assert.NoError(t, r.stop())
	})
}

func TestMaxAttemptsEndsInFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: errs(10, errRefused)}
		o := exponential(time.Second, time.Minute)
		o.MaxAttempts = 3
		r := start(t, f, o)
		err := <-r.done
		assert.ErrorIs(t, err, supervisor.ErrFailed)
		assert.ErrorIs(t, err, errRefused)
		assert.Contains(t, err.Error(), "after 3 attempts")
		starts, _, _, _ := f.snapshot()
		assert.Len(t, starts, 3)
		st := r.Status()
		assert.Equal(t, health.Failed, st.State)
		assert.Equal(t, 3, st.ConsecutiveFailures)
		r.cancel()
	})
}

func TestPermanentErrorFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		denied := errors.New("401 unauthorized")
		f := &fake{results: []error{backoff.Permanent(denied)}}
		r := start(t, f, supervisor.Options[*conn]{Settings: supervisor.Settings{Name: "feed"}})
		err := <-r.done
		assert.ErrorIs(t, err, denied)
		assert.ErrorIs(t, err, supervisor.ErrFailed)
		assert.Equal(t, health.Failed, r.Status().State)
		assert.ErrorIs(t, r.Status().Err, denied)
		_, cerr := r.Conn(context.Background()) // no deadline: it must not wait
		assert.ErrorIs(t, cerr, denied)
		assert.ErrorIs(t, cerr, supervisor.ErrFailed)
		starts, _, _, _ := f.snapshot()
		assert.Len(t, starts, 1)
		r.cancel()
	})
}

func TestClassifyDecidesPermanence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bad := errors.New("bad password")
		f := &fake{results: []error{errRefused, bad}}
		o := exponential(time.Second, time.Minute)
		o.Classify = func(err error) error {
			if errors.Is(err, bad) {
				return backoff.Permanent(err)
			}
			return err
		}
		r := start(t, f, o)
		err := <-r.done
		assert.ErrorIs(t, err, bad)
		starts, _, _, _ := f.snapshot()
		assert.Len(t, starts, 2)
		r.cancel()
	})
}

func TestOnConnectGatesConnectedAndItsFailureCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		o := exponential(time.Second, time.Minute)
		calls := 0
		var sup *running
		o.OnConnect = func(ctx context.Context, c *conn) error {
			calls++
			// Not ready before OnConnect returns: readiness must not lie.
			assert.Equal(t, health.Connecting, sup.Status().State)
			done, cancel := context.WithCancel(ctx)
			cancel()
			_, err := sup.Conn(done)
			assert.ErrorIs(t, err, context.Canceled, "Conn returned a connection before OnConnect finished")
			if calls == 1 {
				return errors.New("LISTEN failed")
			}
			return nil
		}
		s, err := supervisor.New(f, o)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		sup = &running{Supervisor: s, cancel: cancel, done: make(chan error, 1)}
		go func() { sup.done <- s.Run(ctx) }()
		synctest.Wait()
		st := sup.Status()
		require.Equal(t, health.Backoff, st.State)
		assert.Equal(t, 1, st.ConsecutiveFailures)
		assert.Contains(t, st.Err.Error(), "on connect: LISTEN failed")
		_, _, open, _ := f.snapshot()
		assert.Zero(t, open, "the connection whose OnConnect failed is closed")
		sup.untilConnected(t)
		assert.Equal(t, 2, calls)
		assert.Equal(t, uint64(1), sup.Status().Connects)
		assert.NoError(t, sup.stop())
	})
}

func TestInvalidateReconnectsAndStaleInvalidateIsIgnored(t *testing.T) {
	for name, connector := range connectorKinds {
		t.Run(name, func(t *testing.T) { testInvalidate(t, connector) })
	}
}

// connectorKinds runs a test with and without a Watcher: Invalidate must
// work for both (it cancels Watch, or wakes the supervisor's own wait).
var connectorKinds = map[string]func(*fake) supervisor.Connector[*conn]{
	"watcher":  func(f *fake) supervisor.Connector[*conn] { return f },
	"no watch": func(f *fake) supervisor.Connector[*conn] { return noWatch{f} },
}

func testInvalidate(t *testing.T, connector func(*fake) supervisor.Connector[*conn]) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		r := start(t, connector(f), exponential(time.Second, time.Minute))
		c1, err := r.Conn(t.Context())
		require.NoError(t, err)
		r.Invalidate(c1, errors.New("read: EOF"))
		synctest.Wait()
		assert.Equal(t, health.Backoff, r.Status().State)
		assert.Contains(t, r.Status().Err.Error(), "read: EOF")
		c2, err := r.Conn(t.Context())
		require.NoError(t, err)
		require.NotSame(t, c1, c2)

		r.Invalidate(c1, errors.New("late report about c1"))
		r.Invalidate(nil, errors.New("nil conn"))
		synctest.Wait()
		st := r.Status()
		assert.Equal(t, health.Connected, st.State, "a stale Invalidate must not break the new connection")
		assert.Equal(t, uint64(2), st.Connects)
		c, err := r.Conn(t.Context())
		require.NoError(t, err)
		assert.Same(t, c2, c)

		r.Invalidate(c2, nil)
		synctest.Wait()
		assert.ErrorIs(t, r.Status().Err, supervisor.ErrInvalidated)
		assert.NoError(t, r.stop())
	})
}

func TestInvalidateDuringAFailingOnConnectDoesNotHauntTheNextConnection(t *testing.T) {
	for name, connector := range connectorKinds {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fake{}
				o := exponential(time.Second, time.Minute)
				var sup *supervisor.Supervisor[*conn]
				calls := 0
				o.OnConnect = func(ctx context.Context, c *conn) error {
					calls++
					if calls == 1 {
						sup.Invalidate(c, errors.New("stream died"))
						return errors.New("subscribe failed")
					}
					return nil
				}
				s, err := supervisor.New(connector(f), o)
				require.NoError(t, err)
				sup = s
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error, 1)
				go func() { done <- s.Run(ctx) }()
				synctest.Wait()
				time.Sleep(time.Until(s.Status().NextAttempt))
				synctest.Wait()
				st := s.Status()
				assert.Equal(t, health.Connected, st.State, "the first connection's reason must not break the second: %v", st.Err)
				assert.Equal(t, uint64(1), st.Connects)
				cancel()
				assert.NoError(t, <-done)
			})
		})
	}
}

func TestInvalidateDuringOnConnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		o := exponential(time.Second, time.Minute)
		var sup *supervisor.Supervisor[*conn]
		first := true
		o.OnConnect = func(ctx context.Context, c *conn) error {
			if first {
				first = false
				sup.Invalidate(c, errors.New("subscription stream died"))
			}
			return nil
		}
		s, err := supervisor.New[*conn](noWatch{f}, o)
		require.NoError(t, err)
		sup = s
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		synctest.Wait()
		st := s.Status()
		assert.Equal(t, health.Backoff, st.State)
		assert.Contains(t, st.Err.Error(), "subscription stream died")
		cancel()
		assert.NoError(t, <-done)
	})
}

func TestAtMostOneLiveConnectionAndEachClosedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		for i := range 30 {
			if i%3 == 0 {
				f.results = append(f.results, errRefused)
			} else {
				f.results = append(f.results, nil)
			}
		}
		r := start(t, f, exponential(10*time.Millisecond, 50*time.Millisecond))
		for i := range 20 {
			r.untilConnected(t)
			if i%2 == 0 {
				f.last().broken <- fmt.Errorf("break %d", i)
			} else {
				c, err := r.Conn(t.Context())
				require.NoError(t, err)
				r.Invalidate(c, nil)
				r.Invalidate(c, nil)
			}
		}
		r.untilConnected(t)
		assert.NoError(t, r.stop())
		_, _, open, maxOpen := f.snapshot()
		assert.Equal(t, 1, maxOpen)
		assert.Zero(t, open)
		f.mu.Lock()
		defer f.mu.Unlock()
		assert.Len(t, f.closes, len(f.conns))
		for c, n := range f.closes {
			assert.Equal(t, 1, n, "conn %d closed %d times", c.id, n)
		}
	})
}

func TestCancelWhileConnectBlocksReturnsPromptly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{hang: true}
		r := start(t, f, supervisor.Options[*conn]{})
		synctest.Wait()
		t0 := time.Now()
		assert.NoError(t, r.stop())
		assert.Equal(t, t0, time.Now(), "Run returned without waiting for the connect timeout")
		assert.Equal(t, health.Stopped, r.Status().State)
		_, err := r.Conn(context.Background())
		assert.ErrorIs(t, err, supervisor.ErrStopped)
		_, _, open, _ := f.snapshot()
		assert.Zero(t, open)
	})
}

func TestCancelWhileConnectedClosesTheConnection(t *testing.T) {
	for name, c := range connectorKinds {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fake{}
				r := start(t, c(f), supervisor.Options[*conn]{})
				synctest.Wait()
				require.Equal(t, health.Connected, r.Status().State)
				assert.NoError(t, r.stop())
				_, _, open, _ := f.snapshot()
				assert.Zero(t, open)
				assert.Equal(t, health.Stopped, r.Status().State)
			})
		})
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: errs(5, errRefused)}
		r := start(t, f, exponential(time.Minute, time.Hour))
		synctest.Wait()
		require.Equal(t, health.Backoff, r.Status().State)
		t0 := time.Now()
		assert.NoError(t, r.stop())
		assert.Equal(t, t0, time.Now())
	})
}

func TestConnWaitsForConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: errs(2, errRefused)}
		r := start(t, f, exponential(time.Second, time.Minute))
		t0 := time.Now()
		c, err := r.Conn(t.Context())
		require.NoError(t, err)
		assert.Equal(t, 3*time.Second, time.Since(t0), "1s + 2s of backoff")
		assert.Same(t, f.last(), c)

		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		f.mu.Lock()
		f.results = append(f.results, errs(10, errRefused)...)
		f.mu.Unlock()
		f.last().broken <- errors.New("reset")
		synctest.Wait()
		_, err = r.Conn(ctx)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorContains(t, err, "reset", "the last error says why there is no connection")
		assert.NoError(t, r.stop())
	})
}

func TestWatchReturningNilIsALoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		r := start(t, f, exponential(time.Second, time.Minute))
		synctest.Wait()
		close(f.last().broken)
		synctest.Wait()
		assert.ErrorIs(t, r.Status().Err, supervisor.ErrLost)
		assert.NoError(t, r.stop())
	})
}

func TestZeroConnectionIsAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := start(t, nilConnector{}, exponential(time.Second, time.Minute))
		synctest.Wait()
		st := r.Status()
		assert.Equal(t, health.Backoff, st.State)
		assert.ErrorContains(t, st.Err, "neither a connection nor an error")
		assert.NoError(t, r.stop())
	})
}

type nilConnector struct{}

func (nilConnector) Connect(context.Context) (*conn, error) { return nil, nil }
func (nilConnector) Close(*conn) error                      { return nil }

func TestBudgetRefusalWaitsCapButNeverGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		budget, err := backoff.NewBudget(0.1, 1)
		require.NoError(t, err)
		f := &fake{results: errs(3, errRefused)}
		o := exponential(time.Second, time.Minute)
		o.Budget = budget
		r := start(t, f, o)
		r.untilConnected(t)
		starts, ends, _, _ := f.snapshot()
		require.Len(t, starts, 4)
		assert.Equal(t, time.Second, starts[1].Sub(ends[0]), "the one token pays for the first retry")
		assert.Equal(t, time.Minute, starts[2].Sub(ends[1]), "a refused retry waits Cap")
		assert.Equal(t, time.Minute, starts[3].Sub(ends[2]))
		assert.NoError(t, r.stop())
	})
}

func TestRunTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := start(t, &fake{}, supervisor.Options[*conn]{})
		synctest.Wait()
		assert.ErrorIs(t, r.Run(t.Context()), supervisor.ErrAlreadyStarted)
		assert.NoError(t, r.stop())
	})
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, tc := range []struct {
		o    supervisor.Options[*conn]
		want string
	}{
		{supervisor.Options[*conn]{Settings: supervisor.Settings{ConnectTimeout: -1}}, "supervisor: ConnectTimeout -1ns: negative"},
		{supervisor.Options[*conn]{Settings: supervisor.Settings{MaxAttempts: -1}}, "supervisor: MaxAttempts -1: negative"},
		{supervisor.Options[*conn]{Settings: supervisor.Settings{StableAfter: -time.Second}}, "supervisor: StableAfter -1s: negative"},
		{supervisor.Options[*conn]{Settings: supervisor.Settings{MaxHint: -time.Second}}, "supervisor: MaxHint -1s: negative"},
		{supervisor.Options[*conn]{Settings: supervisor.Settings{Backoff: backoff.Config{Base: time.Hour, Cap: time.Second}}}, "supervisor: Backoff.Cap 1s: shorter than Base 1h0m0s"},
		{supervisor.Options[*conn]{Settings: supervisor.Settings{Backoff: backoff.Config{Strategy: 9}}}, "supervisor: Backoff.Strategy 9: unknown (want Decorrelated, Full, Equal or Exponential)"},
	} {
		_, err := supervisor.New[*conn](&fake{}, tc.o)
		assert.EqualError(t, err, tc.want)
		assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
	}
	_, err := supervisor.New[*conn](nil, supervisor.Options[*conn]{})
	assert.EqualError(t, err, "supervisor: Connector: nil")
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
}

func TestPermanentReasonForALostConnectionFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		r := start(t, f, exponential(time.Second, time.Minute))
		synctest.Wait()
		require.Equal(t, health.Connected, r.Status().State)
		policy := errors.New("close 1008: policy violation")
		f.last().broken <- backoff.Permanent(policy)
		err := <-r.done
		assert.ErrorIs(t, err, supervisor.ErrFailed)
		assert.ErrorIs(t, err, policy)
		st := r.Status()
		assert.Equal(t, health.Failed, st.State)
		assert.ErrorIs(t, st.Err, policy)
		assert.Zero(t, st.Failures, "a lost connection is not a failed attempt")
		starts, _, open, _ := f.snapshot()
		assert.Len(t, starts, 1, "no attempt after a permanent loss")
		assert.Zero(t, open)
		r.cancel()
	})
}

// causeWatcher records the cause its Watch's ctx ended with.
type causeWatcher struct {
	*fake
	cause chan error
}

func (w causeWatcher) Watch(ctx context.Context, c *conn) error {
	<-ctx.Done()
	w.cause <- context.Cause(ctx)
	return ctx.Err()
}

func TestWatchSeesInvalidatesReason(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := causeWatcher{fake: &fake{}, cause: make(chan error, 1)}
		r := start(t, w, exponential(time.Second, time.Minute))
		c, err := r.Conn(t.Context())
		require.NoError(t, err)
		synctest.Wait() // Watch runs
		reason := errors.New("read: unexpected EOF")
		r.Invalidate(c, reason)
		cause := <-w.cause
		var inv *supervisor.InvalidatedError
		require.ErrorAs(t, cause, &inv, "Watch learns from its ctx that Invalidate ended it")
		assert.Equal(t, reason, inv.Err, "and why")
		synctest.Wait()
		assert.ErrorIs(t, r.Status().Err, reason)
		r.untilConnected(t)
		assert.NoError(t, r.stop())
		var stopInv *supervisor.InvalidatedError
		assert.False(t, errors.As(<-w.cause, &stopInv), "stopping is not an Invalidate")
	})
}

func TestConnNeverReturnsAnInvalidatedConnection(t *testing.T) {
	for name, connector := range connectorKinds {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fake{}
				r := start(t, connector(f), exponential(time.Second, time.Minute))
				c, err := r.Conn(t.Context())
				require.NoError(t, err)
				r.Invalidate(c, errors.New("read: EOF"))
				// Run's goroutine may not have dropped c yet; Conn must not
				// hand it out again meanwhile.
				done, cancel := context.WithCancel(t.Context())
				cancel()
				got, err := r.Conn(done)
				assert.ErrorIs(t, err, context.Canceled)
				assert.Nil(t, got)
				next, err := r.Conn(t.Context()) // waits through the backoff
				require.NoError(t, err)
				assert.NotSame(t, c, next)
				assert.NoError(t, r.stop())
			})
		})
	}
}

func TestNextAttemptMinusSinceIsThePlannedWait(t *testing.T) {
	// Outside a bubble time moves between two time.Now calls: Since and
	// NextAttempt must come from one reading.
	f := &fake{results: errs(3, errRefused)}
	s, err := supervisor.New[*conn](f, exponential(time.Hour, time.Hour))
	require.NoError(t, err)
	ch, unsub := s.Subscribe()
	defer unsub()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	for st := range ch {
		if st.State == health.Backoff {
			assert.Equal(t, time.Hour, st.NextAttempt.Sub(st.Since))
			break
		}
	}
	cancel()
	require.NoError(t, <-done)
}
