package chaos

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/internal/pgtest"
)

// restartable is a server that a fault stops and starts again on the same
// port.
type restartable interface {
	stop()
	start(t testing.TB)
}

// serverGroup is a server and the subjects that talk to it.
type serverGroup struct {
	name     string
	srv      restartable
	subjects []subject
}

// injector applies a schedule on the test's goroutine (toxitest and
// pgtest fail the test on an error, which only the test's goroutine may
// do). Each fault marks the fault windows of the subjects it touches
// before it is applied and after it is removed.
type injector struct {
	t        *testing.T
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
// fault still in force, unless keep is set, and returns when the last one
// was removed, with the faults kept in force, in kept.
func (in *injector) run(schedule []plannedFault, start time.Time, d time.Duration, keep bool) (ended time.Time, kept []inForce) {
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
	if keep {
		return time.Now(), live
	}
	for _, f := range live {
		in.timed("removing a fault on "+f.key, f.undo)
	}
	return time.Now(), nil
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

func (in *injector) key(f plannedFault) string {
	switch f.kind {
	case faultServerRestart:
		return fmt.Sprintf("server %d", f.target)
	case faultPGRestart:
		return "postgres"
	}
	return fmt.Sprintf("proxy %d", f.target)
}

// apply applies fault f (number i) and returns what removes it; nil when
// it is over already (a PostgreSQL restart).
func (in *injector) apply(f plannedFault, i int) (undo func()) {
	in.applied[f.kind]++
	switch f.kind {
	case faultServerRestart:
		g := in.servers[f.target]
		begin(g.subjects)
		g.srv.stop()
		return func() { g.srv.start(in.t); end(g.subjects) }
	case faultPGRestart:
		begin(in.pg)
		mode := pgtest.Fast
		if f.immediate {
			mode = pgtest.Immediate
		}
		in.cluster.Restart(in.t, mode)
		in.helper.Reset() // its connections died with the server
		end(in.pg)
		return nil
	}
	s := in.subjects[f.target].base()
	p, name := s.proxy, fmt.Sprintf("f%d", i)
	s.window.begin()
	switch f.kind {
	case faultResetPeer:
		p.ResetPeer(in.t, name, 0)
		return func() { p.Remove(in.t, name); s.window.end() }
	case faultDisable:
		p.Disable()
		return func() { p.Enable(in.t); s.window.end() }
	}
	// A timeout toxic, in both directions, closes every connection it is
	// on: after param, or when it is removed (its Cleanup); it drops what
	// it holds, so it must never let a connection go on after dropping
	// data. Latency and bandwidth 0 hold back what the server sends and
	// lose none of it (see toxics_test.go); the client's side passes, so
	// that a client's close reaches the server at once.
	if f.kind == faultTimeout {
		attrs := map[string]any{"timeout": f.param.Milliseconds()}
		p.Add(in.t, name+"-up", "timeout", "upstream", attrs)
		p.Add(in.t, name+"-down", "timeout", "downstream", attrs)
		return func() {
			p.Remove(in.t, name+"-up")
			p.Remove(in.t, name+"-down")
			s.window.end()
		}
	}
	typ, attrs := stallToxic, map[string]any{}
	if f.kind == faultLatency {
		typ, attrs = latencyToxic, map[string]any{"latency": f.param.Milliseconds()}
	}
	p.Add(in.t, name, typ, "downstream", attrs)
	return func() {
		p.Remove(in.t, name)
		s.window.end()
	}
}

func begin(subjects []subject) {
	for _, s := range subjects {
		s.base().window.begin()
	}
}

func end(subjects []subject) {
	for _, s := range subjects {
		s.base().window.end()
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// total returns how many faults were applied.
func (in *injector) total() int {
	n := 0
	for _, c := range in.applied {
		n += c
	}
	return n
}
