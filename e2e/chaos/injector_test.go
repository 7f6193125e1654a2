package chaos

import (
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/internal/testing/pgtest"
)

// injector applies a schedule on the test's goroutine (toxitest and
// pgtest fail the test on an error, which only the test's goroutine may
// do). Each fault marks the fault windows of the subjects it touches
// before it is applied and after it is removed.
type injector struct {
	t        testing.TB
	subjects []subject
	servers  []serverGroup
	cluster  *pgtest.Cluster
	pg       []subject // touched by PostgreSQL restarts
	helper   *pgxpool.Pool

	applied [numFaultKinds]int
	skipped int // planned on a target that still had a fault
}

// inForce is an applied fault waiting for its removal.
type inForce struct {
	key   string
	until time.Time
	undo  func()
}

// run applies the schedule from start until start+d, then removes every
// fault still in force, and returns when the last one was removed.
func (in *injector) run(schedule []plannedFault, start time.Time, d time.Duration) time.Time {
	var live []inForce // sorted by until
	busy := map[string]bool{}
	end := start.Add(d)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for i := 0; ; {
		now := time.Now()
		for len(live) > 0 && !live[0].until.After(now) {
			in.timed("removing a fault on "+live[0].key, live[0].undo)
			delete(busy, live[0].key)
			live = live[1:]
		}
		if !now.Before(end) {
			break
		}
		if i < len(schedule) && !start.Add(schedule[i].at).After(now) {
			f := schedule[i]
			i++
			key := in.key(f)
			if busy[key] {
				in.skipped++
				continue
			}
			var undo func()
			in.timed(f.String(), func() { undo = in.apply(f, i) })
			if undo != nil {
				busy[key] = true
				live = append(live, inForce{key: key, until: time.Now().Add(f.hold), undo: undo})
				sort.SliceStable(live, func(a, b int) bool { return live[a].until.Before(live[b].until) })
			}
			continue
		}
		next := end
		if i < len(schedule) {
			next = minTime(next, start.Add(schedule[i].at))
		}
		if len(live) > 0 {
			next = minTime(next, live[0].until)
		}
		timer.Reset(time.Until(next))
		<-timer.C
	}
	for _, f := range live {
		in.timed("removing a fault on "+f.key, f.undo)
	}
	return time.Now()
}

// slowFault is how long applying or removing a fault may take before the
// log says so: faults are meant to come and go at once (a PostgreSQL
// restart takes a few hundred milliseconds).
const slowFault = 2 * time.Second

func (in *injector) timed(what string, f func()) {
	start := time.Now()
	f()
	if d := time.Since(start); d > slowFault {
		in.t.Logf("chaos: %s took %v", what, d.Round(time.Millisecond))
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// removeAll removes faults at once, each on a goroutine of its own: a
// removal may wait flushBudget for a writer whose connection died.
// Meanwhile failures are reported with Errorf: only the test's goroutine
// may call Fatalf.
func (in *injector) removeAll(undos []func()) {
	t := in.t
	in.t = errorsOnly{t}
	defer func() { in.t = t }()
	var wg sync.WaitGroup
	for _, undo := range undos {
		wg.Go(undo)
	}
	wg.Wait()
}

// errorsOnly is a testing.TB whose Fatalf is Errorf, for goroutines other
// than the test's. toxitest calls nothing after Fatalf.
type errorsOnly struct{ testing.TB }

func (e errorsOnly) Fatalf(format string, args ...any) { e.Errorf(format, args...) }
