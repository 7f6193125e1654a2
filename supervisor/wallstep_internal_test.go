package supervisor

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
)

// busyOnce refuses its first attempt with a server's hint, then connects.
type busyOnce struct {
	hint  time.Duration
	calls atomic.Int32
}

func (b *busyOnce) Connect(context.Context) (*int, error) {
	if b.calls.Add(1) == 1 {
		return nil, backoff.RetryAfter(errors.New("busy"), b.hint)
	}
	return new(int), nil
}
func (b *busyOnce) Close(*int) error { return nil }

// stepWall returns t as a wall-clock step back of d (NTP, a resumed VM)
// leaves it relative to the clock: its wall reading d later, its
// monotonic reading unchanged. (time.Time is {wall, ext, loc}; with a
// monotonic reading, wall's bits 30-62 count seconds and ext is that
// reading.)
func stepWall(t time.Time, d time.Duration) time.Time {
	w := (*struct {
		wall uint64
		ext  int64
	})(unsafe.Pointer(&t))
	w.wall += uint64(d/time.Second) << 30
	return t
}

// The wall clock steps back an hour during a Backoff whose wait a server's
// hint shortens: RetryNow's attempt comes when the hint ends, not an hour
// later. A synctest bubble's clock has no monotonic reading (time.Now in a
// bubble carries none), so this runs on the real clock and steps the
// deadline Run stored as a step moves it. The old code kept UnixNano: the
// same step was restUntil += 1h, and the attempt waited the hour.
func TestRetryNowIgnoresAWallClockStep(t *testing.T) {
	c := &busyOnce{hint: 200 * time.Millisecond}
	s, err := New[*int](c, Options[*int]{Settings: Settings{Backoff: backoff.Config{Strategy: backoff.Exponential, Base: time.Minute, Cap: time.Hour}}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	ch, unsubscribe := s.Subscribe()
	defer unsubscribe()
	for st := range ch {
		if st.State == health.Backoff {
			break
		}
	}
	require.GreaterOrEqual(t, time.Until(s.Status().NextAttempt), 50*time.Second, "the backoff's minute set the wait")
	until := *s.restUntil.Load()
	require.NotEqual(t, until, until.Round(0), "the deadline has a monotonic reading")
	stepped := stepWall(until, time.Hour)
	require.Equal(t, int64(3600), stepped.Unix()-until.Unix())
	s.restUntil.Store(&stepped)
	began := time.Now()
	s.RetryNow()
	// The wrong wait is an hour; 30s leaves a loaded machine 150 times
	// the hint.
	limit := time.After(30 * time.Second)
	for st := s.Status(); st.State != health.Connected; {
		select {
		case st = <-ch:
		case <-limit:
			t.Fatalf("no attempt %v after RetryNow (hint %v)", time.Since(began), c.hint)
		}
	}
	assert.Equal(t, int32(2), c.calls.Load())
}
