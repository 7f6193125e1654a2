package supervisor_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// orderFake is a fake whose Close records, at that moment, whether the
// readiness of a Registry holding its supervisor was already false, and
// what its Watch's ctx ended with.
type orderFake struct {
	*fake
	reg        *health.Registry
	mu         sync.Mutex
	readyAtEnd []bool
	causes     []error
}

func (o *orderFake) Close(c *conn) error {
	o.mu.Lock()
	o.readyAtEnd = append(o.readyAtEnd, o.reg.Ready())
	o.mu.Unlock()
	return o.fake.Close(c)
}

func (o *orderFake) Watch(ctx context.Context, c *conn) error {
	err := o.fake.Watch(ctx, c)
	o.mu.Lock()
	o.causes = append(o.causes, context.Cause(ctx))
	o.mu.Unlock()
	return err
}

// A Do under way when Drain begins completes, with the connection still
// open; Do and Conn are refused from the drain's start, readiness is 503
// before the connection closes, its Watch ends with ErrDraining (a
// goodbye, not a break), then Stopped, and Run returns nil.
func TestDrainLetsTheDoUnderWayFinishThenStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &orderFake{fake: &fake{}, reg: &health.Registry{}}
		r := start(t, f, exponential(time.Second, time.Minute))
		f.reg.Add("db", r, health.SourceOptions{Critical: true})
		synctest.Wait()
		require.True(t, f.reg.Ready())

		release := make(chan struct{})
		type result struct {
			err error
			at  time.Time
		}
		did := make(chan result, 1)
		doing := make(chan struct{})
		go func() {
			err := r.Do(t.Context(), func(ctx context.Context, c *conn) error {
				close(doing)
				<-release
				assert.Zero(t, f.closeCount(c), "the connection stays open under a Do")
				return nil
			})
			did <- result{err, time.Now()}
		}()
		<-doing

		began := time.Now()
		drained := make(chan error, 1)
		go func() { drained <- r.Drain(t.Context()) }()
		synctest.Wait()
		st := r.Status()
		assert.True(t, r.Draining())
		assert.Equal(t, health.Connected, st.State, "State keeps its meaning")
		assert.False(t, f.reg.Ready(), "not ready from the drain's start")
		assert.ErrorIs(t, r.Do(t.Context(), func(context.Context, *conn) error { return nil }), supervisor.ErrDraining)
		_, err := r.Conn(t.Context())
		assert.ErrorIs(t, err, supervisor.ErrDraining)
		assert.Zero(t, f.closeCount(f.last()))

		time.Sleep(3 * time.Second) // the Do's work
		close(release)
		require.NoError(t, <-drained)
		d := <-did
		assert.NoError(t, d.err)
		assert.Equal(t, 3*time.Second, d.at.Sub(began), "the Do under way ran to its end")
		assert.Equal(t, 1, f.closeCount(f.last()))
		assert.Equal(t, health.Stopped, r.Status().State)
		assert.NoError(t, <-r.done)
		assert.Equal(t, []bool{false}, f.readyAtEnd, "readiness was 503 before the connection closed")
		require.Len(t, f.causes, 1)
		assert.ErrorIs(t, f.causes[0], supervisor.ErrDraining)
		_, err = r.Conn(t.Context())
		assert.ErrorIs(t, err, supervisor.ErrStopped)
		assert.ErrorIs(t, err, supervisor.ErrDraining, "refused after the drain as during it")
	})
}

// A Do that outlives Drain's ctx is cut: Run stops at the deadline,
// closing the connection under it, and Drain says so.
func TestDrainDeadlineCutsTheWorkUnderWay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		r := start(t, f, exponential(time.Second, time.Minute))
		synctest.Wait()
		release := make(chan struct{})
		go func() {
			_ = r.Do(t.Context(), func(context.Context, *conn) error { <-release; return nil })
		}()
		synctest.Wait()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		began := time.Now()
		err := r.Drain(ctx)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 5*time.Second, time.Since(began))
		assert.NoError(t, <-r.done)
		assert.Equal(t, 1, f.closeCount(f.last()), "closed under the Do")
		assert.Equal(t, health.Stopped, r.Status().State)
		close(release)
	})
}

// In Backoff nothing is in use: Drain stops at once, and a Conn waiting
// for a connection is refused with ErrDraining.
func TestDrainInBackoffWakesWaitersAndStopsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: errs(100, assertErr("refused"))}
		r := start(t, f, exponential(time.Minute, time.Hour))
		synctest.Wait()
		require.Equal(t, health.Backoff, r.Status().State)
		waited := make(chan error, 1)
		go func() { _, err := r.Conn(t.Context()); waited <- err }()
		synctest.Wait()
		began := time.Now()
		require.NoError(t, r.Drain(t.Context()))
		assert.Zero(t, time.Since(began))
		assert.ErrorIs(t, <-waited, supervisor.ErrDraining)
		assert.NoError(t, <-r.done)
		starts, _, _, _ := f.snapshot()
		assert.Len(t, starts, 1, "no attempt after the drain began")
	})
}

// Drain before Run: Run stops at once; Drain returns when it has.
func TestDrainBeforeRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		s, err := supervisor.New[*conn](f, exponential(time.Second, time.Minute))
		require.NoError(t, err)
		drained := make(chan error, 1)
		go func() { drained <- s.Drain(t.Context()) }()
		synctest.Wait()
		require.NoError(t, s.Run(t.Context()))
		require.NoError(t, <-drained)
		assert.Equal(t, health.Stopped, s.Status().State)
		assert.Zero(t, f.openCount())
	})
}

// A connection lost while Drain waits for the work under way is not
// dialed again.
func TestALossWhileDrainingEndsRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		r := start(t, f, exponential(time.Second, time.Minute))
		synctest.Wait()
		release := make(chan struct{})
		go func() {
			_ = r.Do(t.Context(), func(context.Context, *conn) error { <-release; return nil })
		}()
		synctest.Wait()
		drained := make(chan error, 1)
		go func() { drained <- r.Drain(t.Context()) }()
		synctest.Wait()
		f.last().broken <- assertErr("reset")
		synctest.Wait()
		assert.Equal(t, health.Stopped, r.Status().State)
		assert.NoError(t, <-r.done)
		close(release)
		assert.NoError(t, <-drained)
		starts, _, _, _ := f.snapshot()
		assert.Len(t, starts, 1)
	})
}

type assertErr string

func (e assertErr) Error() string { return string(e) }

// gated is a fake whose Watch returns only once gate is closed, whatever
// its ctx says: Run is busy while the test calls in.
type gated struct {
	*fake
	gate chan struct{}
}

func (g *gated) Watch(ctx context.Context, c *conn) error {
	<-g.gate
	return ctx.Err()
}

// Invalidate after the drain told Run to stop never blocks, while Run
// has not read the reason channel (it holds one value).
func TestInvalidateAfterTheDrainStopNeverBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &gated{fake: &fake{}, gate: make(chan struct{})}
		r := start(t, f, exponential(time.Second, time.Minute))
		synctest.Wait()
		c := f.last()
		release := make(chan struct{})
		go func() {
			_ = r.Do(t.Context(), func(context.Context, *conn) error { <-release; return nil })
		}()
		synctest.Wait()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		assert.Error(t, r.Drain(ctx)) // cut: the Do still runs, Run was told to stop
		r.Invalidate(c, assertErr("late"))
		close(f.gate)
		close(release)
		assert.NoError(t, <-r.done)
	})
}
