package testkit_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// fatalTB records a Fatalf and ends the goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// fails runs f with a fatalTB on a goroutine of its own and returns what
// it failed with ("" when it did not).
func fails(t *testing.T, f func(testing.TB)) string {
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(tb)
	}()
	<-done
	return tb.msg
}

// closedFeed is a Subscriber whose channel holds states and is then
// closed, as a supervisor's is after its final Status.
type closedFeed struct{ states []health.State }

func (f closedFeed) Subscribe() (<-chan health.Status, func()) {
	ch := make(chan health.Status, len(f.states))
	for _, s := range f.states {
		ch <- health.Status{State: s}
	}
	close(ch)
	return ch, func() {}
}

func statuses(states ...health.State) <-chan health.Status {
	ch, _ := closedFeed{states}.Subscribe()
	return ch
}

func TestUntil(t *testing.T) {
	st := testkit.Until(t, statuses(health.Connecting, health.Connected, health.Stopped), time.Second, "connected", testkit.InState(health.Connected))
	assert.Equal(t, health.Connected, st.State)
}

// A closed channel ends the wait at once: no status can come any more,
// and the zero Status a closed channel gives is not one (it would pass
// for Idle).
func TestUntilChannelClosed(t *testing.T) {
	start := time.Now()
	msg := fails(t, func(tb testing.TB) {
		testkit.Until(tb, statuses(health.Connecting, health.Stopped), time.Minute, "idle", testkit.InState(health.Idle))
	})
	assert.Equal(t, "no status idle: the channel closed; last: stopped <nil>", msg)
	assert.Less(t, time.Since(start), time.Second)
}

func TestUntilTimeout(t *testing.T) {
	msg := fails(t, func(tb testing.TB) {
		testkit.Until(tb, make(chan health.Status), 10*time.Millisecond, "connected", testkit.InState(health.Connected))
	})
	assert.Equal(t, "no status connected within 10ms; last: idle <nil>", msg)
}

func TestWaitStatusChannelClosed(t *testing.T) {
	start := time.Now()
	msg := fails(t, func(tb testing.TB) {
		testkit.WaitStatus(tb, closedFeed{[]health.State{health.Failed}}, time.Minute, "idle", testkit.InState(health.Idle))
	})
	assert.Equal(t, "no idle: the health channel closed; last status: failed attempt 0 err <nil>", msg)
	assert.Less(t, time.Since(start), time.Second)
}
