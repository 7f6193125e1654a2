package supervisor_test

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
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

// stuck is the fake whose first Connect ignores its ctx: it waits for
// release, then panics with value when that is set, or connects.
type stuck struct {
	*fake
	mu      sync.Mutex
	calls   int
	release chan struct{}
	value   any
}

func (s *stuck) Connect(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	s.calls++
	first := s.calls == 1
	s.mu.Unlock()
	if first {
		<-s.release
		if s.value != nil {
			panic(s.value)
		}
	}
	return s.fake.Connect(ctx)
}

// attemptEnd is when an attempt whose calls ignore ctx is abandoned.
const attemptEnd = time.Second + 100*time.Millisecond

func boundedOptions() supervisor.Options[*conn] {
	o := exponential(time.Second, time.Minute)
	o.ConnectTimeout = time.Second
	return o
}

func TestAConnectThatIgnoresCtxIsAbandonedAtConnectTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		c := &stuck{fake: f, release: make(chan struct{})}
		t0 := time.Now()
		r := start(t, c, boundedOptions())
		time.Sleep(attemptEnd)
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State, "the attempt ends at ConnectTimeout")
		assert.Equal(t, t0.Add(attemptEnd), st.Since)
		assert.ErrorIs(t, st.Err, context.DeadlineExceeded)
		assert.Contains(t, st.Err.Error(), "connect: timed out after 1s")

		r.untilConnected(t) // the next attempt, while the first call still runs
		live, err := r.Conn(t.Context())
		require.NoError(t, err)
		close(c.release) // the late result
		synctest.Wait()
		late := f.last()
		require.NotSame(t, live, late)
		assert.Equal(t, 1, f.closeCount(late), "the late connection is closed")
		got, err := r.Conn(t.Context())
		require.NoError(t, err)
		assert.Same(t, live, got, "the late connection is never handed out")
		require.NoError(t, r.stop())
		assert.Zero(t, f.openCount())
	})
}

func TestAnOnConnectThatIgnoresCtxIsAbandonedAtConnectTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		release := make(chan struct{})
		o := boundedOptions()
		calls := 0
		o.OnConnect = func(context.Context, *conn) error {
			calls++
			if calls == 1 {
				<-release
			}
			return nil
		}
		t0 := time.Now()
		r := start(t, f, o)
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		_, err := r.Conn(ctx)
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, "no connection before OnConnect returned")
		time.Sleep(time.Until(t0.Add(attemptEnd)))
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State)
		assert.Equal(t, t0.Add(attemptEnd), st.Since)
		assert.Contains(t, st.Err.Error(), "on connect: timed out after 1s")
		first := f.last()
		r.untilConnected(t)
		live, err := r.Conn(t.Context())
		require.NoError(t, err)
		assert.NotSame(t, first, live)
		assert.Zero(t, f.closeCount(first), "closed once its OnConnect returned, not while it runs")
		close(release)
		synctest.Wait()
		assert.Equal(t, 1, f.closeCount(first), "the abandoned attempt's connection is closed")
		require.NoError(t, r.stop())
		assert.Zero(t, f.openCount())
	})
}

func TestRunReturnsPromptlyWhileACallIgnoresCtx(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		c := &stuck{fake: f, release: make(chan struct{})}
		o := boundedOptions()
		o.ConnectTimeout = 10 * time.Second
		r := start(t, c, o)
		time.Sleep(time.Second)
		t0 := time.Now()
		r.cancel()
		require.NoError(t, <-r.done)
		assert.LessOrEqual(t, time.Since(t0), 100*time.Millisecond, "Run returned long after its ctx ended")
		assert.Equal(t, health.Stopped, r.Status().State)
		close(c.release) // the abandoned call returns after Run did: its connection is closed
		synctest.Wait()
		_, _, open, maxOpen := f.snapshot()
		assert.Zero(t, open)
		assert.Equal(t, 1, maxOpen)
	})
}

func TestAPanicInAnAbandonedCallFailsTheRunningSupervisor(t *testing.T) {
	for name, results := range map[string][]error{
		"connected":   nil,
		"backing off": {errRefused},                                  // the second attempt fails: Run waits 2s
		"resting":     {backoff.RetryAfter(errRefused, time.Minute)}, // a hint's wait
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fake{results: results}
				value := &boom{"late"}
				c := &stuck{fake: f, release: make(chan struct{}), value: value}
				s, err := supervisor.New[*conn](c, boundedOptions())
				require.NoError(t, err)
				ch, _ := s.Subscribe()
				recovered := make(chan any, 1)
				go func() {
					defer func() { recovered <- recover() }()
					_ = s.Run(t.Context())
				}()
				time.Sleep(attemptEnd)
				synctest.Wait()
				require.Equal(t, health.Backoff, s.Status().State)
				time.Sleep(time.Until(s.Status().NextAttempt))
				synctest.Wait()
				t0 := time.Now()
				close(c.release)
				assert.Same(t, value, <-recovered)
				assert.Equal(t, t0, time.Now(), "at once, not after the wait")
				assertPanicked(t, s, ch, "Connect")
				assert.Zero(t, f.openCount())
			})
		})
	}
}

// slowHandler takes 20ms per record, on the supervisor's clock.
type slowHandler struct{}

func (slowHandler) Enabled(context.Context, slog.Level) bool { return true }
func (slowHandler) Handle(context.Context, slog.Record) error {
	time.Sleep(20 * time.Millisecond)
	return nil
}
func (h slowHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h slowHandler) WithGroup(string) slog.Handler      { return h }

func TestErrIsSetBeforeTheFinalStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{backoff.Permanent(errRefused)}}
		o := exponential(time.Second, time.Minute)
		o.Logger = slog.New(slowHandler{})
		s, err := supervisor.New[*conn](f, o)
		require.NoError(t, err)
		ch, _ := s.Subscribe()
		done := make(chan error, 1)
		go func() { done <- s.Run(t.Context()) }()
		for range ch {
		}
		err = s.Err()
		assert.ErrorIs(t, err, supervisor.ErrFailed, "the loop over the health channel ended: Err says why")
		assert.ErrorIs(t, err, errRefused)
		assert.Equal(t, err, <-done)
	})
}

// After Run returned no one can recover a panic of a call it abandoned:
// it crashes the program, as any goroutine's unrecovered panic does, rather
// than vanish.
func TestAPanicInAnAbandonedCallAfterRunReturnedCrashes(t *testing.T) {
	if os.Getenv("REDIAL_LATE_PANIC") == "1" {
		synctest.Test(t, func(t *testing.T) {
			c := &stuck{fake: &fake{}, release: make(chan struct{}), value: "late boom"}
			r := start(t, c, boundedOptions())
			time.Sleep(time.Second)
			require.NoError(t, r.stop())
			close(c.release)
			synctest.Wait()
		})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAPanicInAnAbandonedCallAfterRunReturnedCrashes$")
	cmd.Env = append(os.Environ(), "REDIAL_LATE_PANIC=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the program went on: %s", out)
	assert.Contains(t, string(out), "panic: late boom")
}
