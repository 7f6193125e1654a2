package supervisor_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// events is a log of what a fake connector and OnConnect saw, in order.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) add(format string, args ...any) {
	e.mu.Lock()
	e.log = append(e.log, fmt.Sprintf(format, args...))
	e.mu.Unlock()
}

func (e *events) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.log...)
}

// closeLogger is a fake whose Close is logged.
type closeLogger struct {
	*fake
	ev *events
}

func (c *closeLogger) Close(cn *conn) error {
	c.ev.add("close %d", cn.id)
	return c.fake.Close(cn)
}

// Replace dials the new connection and runs its OnConnect while the old
// one stays live and open; the old one closes once the Do holding it
// returned; the state never leaves Connected, and no outage or failure is
// counted.
func TestReplaceIsMakeBeforeBreak(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &events{}
		f := &closeLogger{fake: &fake{latency: time.Second}, ev: ev}
		o := exponential(time.Second, time.Minute)
		o.OnConnect = func(_ context.Context, c *conn) error {
			ev.add("onconnect %d", c.id)
			time.Sleep(500 * time.Millisecond)
			return nil
		}
		r := start(t, f, o)
		synctest.Wait()
		time.Sleep(2 * time.Second)
		require.Equal(t, health.Connected, r.Status().State)
		states, unsub := r.Subscribe()
		defer unsub()
		<-states

		release, did := make(chan struct{}), make(chan error, 1)
		go func() {
			did <- r.Do(t.Context(), func(_ context.Context, c *conn) error {
				<-release
				assert.Zero(t, f.closeCount(c), "the old connection stays open under its Do")
				return nil
			})
		}()
		synctest.Wait()
		r.Replace()
		synctest.Wait() // dialing: the old one is still handed out
		old, err := r.Conn(t.Context())
		require.NoError(t, err)
		assert.Equal(t, 1, old.id, "the old one is live while the new one dials")
		time.Sleep(1500 * time.Millisecond) // Connect and OnConnect of the new one
		synctest.Wait()
		c, err := r.Conn(t.Context())
		require.NoError(t, err)
		assert.Equal(t, 2, c.id, "the new one is live")
		assert.Equal(t, []string{"onconnect 1", "onconnect 2"}, ev.all(), "not closed while its Do runs")
		close(release)
		require.NoError(t, <-did)
		synctest.Wait()
		assert.Equal(t, []string{"onconnect 1", "onconnect 2", "close 1"}, ev.all())
		st := r.Status()
		assert.Equal(t, health.Connected, st.State)
		assert.EqualValues(t, 2, st.Connects)
		assert.Zero(t, st.Failures)
		assert.Zero(t, st.LongestOutage)
		for _, tr := range r.History() {
			assert.NotEqual(t, health.Backoff, tr.To)
			if tr.From == health.Connected {
				assert.Equal(t, health.Connected, tr.To, "never left Connected: %+v", tr)
			}
		}
		require.NoError(t, r.stop())
		assert.Zero(t, f.openCount())
	})
}

// MaxConnectionAge replaces each connection once it is MaxConnectionAge
// less up to MaxConnectionAgeJitter old.
func TestMaxConnectionAgeReplacesWithinItsJitter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		o := exponential(time.Second, time.Minute)
		o.MaxConnectionAge, o.MaxConnectionAgeJitter = 10*time.Second, 2*time.Second
		r := start(t, f, o)
		time.Sleep(time.Minute)
		synctest.Wait()
		starts, _, open, _ := f.snapshot()
		require.GreaterOrEqual(t, len(starts), 6)
		for i := 1; i < len(starts); i++ {
			age := starts[i].Sub(starts[i-1])
			assert.True(t, age >= 8*time.Second && age <= 10*time.Second, "connection %d lived %v", i, age)
		}
		assert.Equal(t, 1, open, "each old one closed")
		assert.EqualValues(t, len(starts), r.Status().Connects)
		require.NoError(t, r.stop())
	})
}

// Without a Watcher the wait for Invalidate ends at the age too.
func TestMaxConnectionAgeWithoutAWatcher(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		o := exponential(time.Second, time.Minute)
		o.MaxConnectionAge = 10 * time.Second
		r := start(t, noWatch{f}, o)
		time.Sleep(25 * time.Second)
		synctest.Wait()
		starts, _, open, _ := f.snapshot()
		assert.GreaterOrEqual(t, len(starts), 3)
		assert.Equal(t, 1, open)
		require.NoError(t, r.stop())
	})
}

// A replacement that fails leaves the old connection live, says why, and
// is tried again after ConnectTimeout to twice that.
func TestAFailedReplacementKeepsTheOldConnection(t *testing.T) {
	for name, watch := range map[string]bool{"Watch": true, "no Watch": false} {
		t.Run(name, func(t *testing.T) { failedReplacement(t, watch) })
	}
}

func failedReplacement(t *testing.T, watch bool) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{nil, assertErr("refused")}}
		o := exponential(time.Second, time.Minute)
		o.ConnectTimeout = 5 * time.Second
		var cn supervisor.Connector[*conn] = noWatch{f}
		if watch {
			cn = f
		}
		r := start(t, cn, o)
		synctest.Wait()
		r.Replace()
		synctest.Wait()
		st := r.Status()
		assert.Equal(t, health.Connected, st.State)
		assert.ErrorContains(t, st.Err, "refused")
		c, err := r.Conn(t.Context())
		require.NoError(t, err)
		assert.Equal(t, 1, c.id)
		assert.Zero(t, f.closeCount(c))
		time.Sleep(10 * time.Second)
		synctest.Wait()
		c, err = r.Conn(t.Context())
		require.NoError(t, err)
		assert.Equal(t, 3, c.id, "tried again, and replaced")
		assert.Equal(t, 1, f.openCount())
		require.NoError(t, r.stop())
	})
}

// Invalidate during a replacement: the old connection is dropped as
// broken once the new one is live; a Drain during one ends both.
func TestDrainDuringAReplacement(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{latency: time.Second}
		r := start(t, f, exponential(time.Second, time.Minute))
		time.Sleep(2 * time.Second)
		synctest.Wait()
		r.Replace()
		time.Sleep(100 * time.Millisecond)
		require.NoError(t, r.Drain(t.Context()))
		assert.Equal(t, health.Stopped, r.Status().State)
		assert.Zero(t, f.openCount())
		assert.NoError(t, <-r.done)
	})
}

// 1,000 supervisors connected at once with MaxConnectionAge 10s and the
// default jitter: their replacements spread, the busiest second at most
// twice the mean over two minutes.
func TestMaxConnectionAgeSpreadsAFleet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n, age, run = 1000, 10 * time.Second, 2 * time.Minute
		fakes := make([]*fake, n)
		o := exponential(time.Second, time.Minute)
		o.MaxConnectionAge = age
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		for i := range fakes {
			fakes[i] = &fake{}
			s, err := supervisor.New[*conn](fakes[i], o)
			require.NoError(t, err)
			wg.Go(func() { _ = s.Run(ctx) })
		}
		t0 := time.Now()
		time.Sleep(run)
		cancel()
		wg.Wait()
		perSecond := make([]int, int(run/time.Second))
		total := 0
		for _, f := range fakes {
			starts, _, _, _ := f.snapshot()
			for _, s := range starts[1:] {
				if sec := int(s.Sub(t0) / time.Second); sec < len(perSecond) {
					perSecond[sec]++
					total++
				}
			}
		}
		first := int((age - age/2) / time.Second) // none before the first can be due
		busiest := 0
		for _, c := range perSecond[first:] {
			busiest = max(busiest, c)
		}
		mean := float64(total) / float64(len(perSecond)-first)
		t.Logf("%d replacements in %v: mean %.0f/s, busiest second %d (%.2fx)", total, run-time.Duration(first)*time.Second, mean, busiest, float64(busiest)/mean)
		assert.LessOrEqual(t, float64(busiest), 2*mean)
	})
}

// A replacement whose OnConnect ignores its ctx is abandoned at
// ConnectTimeout: the old connection stays live and served.
func TestAnAbandonedReplacementKeepsTheOldConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		release := make(chan struct{})
		o := exponential(time.Second, time.Minute)
		o.ConnectTimeout = 5 * time.Second
		o.OnConnect = func(_ context.Context, c *conn) error {
			if c.id == 2 {
				<-release // ignores its ctx
			}
			return nil
		}
		r := start(t, f, o)
		synctest.Wait()
		r.Replace()
		time.Sleep(6 * time.Second)
		synctest.Wait()
		st := r.Status()
		assert.Equal(t, health.Connected, st.State)
		assert.ErrorContains(t, st.Err, "timed out")
		c, err := r.Conn(t.Context())
		require.NoError(t, err)
		assert.Equal(t, 1, c.id, "the old one stays")
		close(release)
		synctest.Wait()
		assert.Equal(t, 1, f.closeCount(f.conns[1]), "the late one is closed")
		f.last().broken <- assertErr("reset") // still watched: a loss is seen
		synctest.Wait()
		require.NoError(t, r.stop())
	})
}

// A replacement's OnConnect that panics fails the supervisor as any
// callback's panic does: both connections are closed, Run panics again.
func TestAPanicInAReplacementClosesBoth(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		o := exponential(time.Second, time.Minute)
		o.OnConnect = func(_ context.Context, c *conn) error {
			if c.id == 2 {
				panic("boom")
			}
			return nil
		}
		s, err := supervisor.New[*conn](f, o)
		require.NoError(t, err)
		panicked := make(chan any, 1)
		go func() {
			defer func() { panicked <- recover() }()
			_ = s.Run(t.Context())
		}()
		synctest.Wait()
		s.Replace()
		assert.Equal(t, "boom", <-panicked)
		assert.Zero(t, f.openCount(), "both closed")
		assert.Equal(t, health.Failed, s.Status().State)
		assert.ErrorIs(t, s.Err(), supervisor.ErrPanicked)
	})
}
