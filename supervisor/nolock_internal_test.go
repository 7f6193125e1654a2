package supervisor

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
)

// lockProbe is a Connector, Watcher, Classify, OnConnect and slog.Handler
// that checks, each time user code runs, that the supervisor's lock is free.
type lockProbe struct {
	s      *Supervisor[*int]
	calls  map[string]int
	locked atomic.Int32
	n      int
}

func (p *lockProbe) check(where string) {
	p.calls[where]++
	if !p.s.mu.TryLock() {
		p.locked.Add(1)
		return
	}
	p.s.mu.Unlock()
}

func (p *lockProbe) Connect(ctx context.Context) (*int, error) {
	p.check("Connect")
	p.n++
	if p.n%2 == 0 {
		return nil, errors.New("refused")
	}
	return &p.n, nil
}
func (p *lockProbe) Close(*int) error { p.check("Close"); return errors.New("close error") }
func (p *lockProbe) Watch(ctx context.Context, c *int) error {
	p.check("Watch")
	return errors.New("broken")
}

func (p *lockProbe) Enabled(context.Context, slog.Level) bool { return true }
func (p *lockProbe) Handle(context.Context, slog.Record) error {
	p.check("Logger")
	return nil
}
func (p *lockProbe) WithAttrs([]slog.Attr) slog.Handler { return p }
func (p *lockProbe) WithGroup(string) slog.Handler      { return p }

func TestNoLockHeldWhileUserCodeRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &lockProbe{calls: map[string]int{}}
		s, err := New[*int](p, Options[*int]{
			Settings: Settings{
				Backoff:  backoffConfigForTest(),
				Classify: func(err error) error { p.check("Classify"); return err },
				Logger:   slog.New(p),
			},
			OnConnect: func(context.Context, *int) error { p.check("OnConnect"); return nil },
		})
		require.NoError(t, err)
		p.s = s
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		assert.NoError(t, s.Run(ctx))
		for _, where := range []string{"Connect", "Close", "Watch", "OnConnect", "Classify", "Logger"} {
			assert.Positive(t, p.calls[where], "%s never ran", where)
		}
		assert.Zero(t, p.locked.Load(), "user code ran with the lock held: %v", p.calls)
	})
}

func backoffConfigForTest() backoff.Config {
	return backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: time.Second}
}

// ReportSuccess and RetryNow take no lock unless they may cut the wait: a pool
// calls them after every query. (Were they to lock, this would deadlock.)
func TestProvenAndRetryNowTakeNoLockTheyDoNotNeed(t *testing.T) {
	s, err := New[*int](&lockProbe{}, Options[*int]{})
	require.NoError(t, err)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ReportSuccess() // Idle, as when Connected
	s.RetryNow()
	s.cut.Store(byProof) // a hint's wait: RetryNow may not cut it
	s.RetryNow()
}
