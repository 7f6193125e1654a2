package testkit

import (
	"sync"
	"testing"
	"time"
)

// Lateness measures how late this machine wakes a sleeping goroutine
// while a test waits for something timed: on two cores busy with other
// work, -race and CPU burners, a timer planned for 200ms fires 100-300ms
// late. A bound on a library's timing is then the plan plus a margin plus
// that lateness once for each wake-up the library makes on its way (a
// timer, a goroutine it hands the result to): relative to what the test
// measured, tight on an idle machine.
type Lateness struct {
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	worst time.Duration
}

// lateStep is how long each of the probe's sleeps is planned to be.
const lateStep = 5 * time.Millisecond

// MeasureLateness starts the probe: a goroutine sleeping lateStep again
// and again, recording the largest overshoot; the test's cleanup stops it.
func MeasureLateness(t testing.TB) *Lateness {
	l := &Lateness{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		timer := time.NewTimer(lateStep)
		defer timer.Stop()
		for planned := time.Now(); ; planned = time.Now() {
			select {
			case <-l.stop:
				return
			case <-timer.C:
			}
			l.record(time.Since(planned) - lateStep)
			timer.Reset(lateStep)
		}
	}()
	t.Cleanup(l.Stop)
	return l
}

func (l *Lateness) record(late time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.worst = max(l.worst, late)
}

// Stop ends the probe; Worst keeps what it saw.
func (l *Lateness) Stop() {
	l.once.Do(func() { close(l.stop) })
	<-l.done
}

// Worst is the largest overshoot of one sleep seen so far.
func (l *Lateness) Worst() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.worst
}

// Bound is planned + margin + wakes times the worst lateness seen so far.
func (l *Lateness) Bound(planned, margin time.Duration, wakes int) time.Duration {
	return planned + margin + time.Duration(wakes)*l.Worst()
}
