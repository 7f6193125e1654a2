package chaos

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redial-go/redial/health"
)

// runner is one run in progress: the suite, the contexts that end each
// kind of goroutine, and what is counted.
type runner struct {
	*suite
	t   *testing.T
	sum summary
	rt  rtStats
	mon *monitor

	runCtx, readCtx, workCtx          context.Context
	cancelRun, cancelRead, cancelWork context.CancelFunc
	reads, works                      sync.WaitGroup
	stopped                           bool // the stop rule was checked (under faults)
	began                             time.Time
}

func newRunner(t *testing.T, cfg config) *runner {
	r := &runner{t: t, began: time.Now(), sum: summary{cfg: cfg}}
	r.suite = build(t, cfg)
	r.mon = &monitor{helper: r.helper, live: r.live, pg: r.pgNames()}
	r.runCtx, r.cancelRun = context.WithCancel(context.Background())
	r.readCtx, r.cancelRead = context.WithCancel(context.Background())
	r.workCtx, r.cancelWork = context.WithCancel(context.Background())
	t.Cleanup(func() { // also after a t.Fatal: nothing the run started outlives it
		r.cancelWork()
		r.works.Wait()
		r.cancelRun()
		for _, sub := range r.subjects {
			<-sub.base().runDone
		}
		r.cancelRead()
		r.reads.Wait()
	})
	return r
}

// start runs every supervisor and its reader, and waits until all are
// Connected.
func (r *runner) start() {
	defer r.phase("start")()
	for _, sub := range r.subjects {
		go runSubject(r.runCtx, sub, r.cfg)
		sub.consume(r.readCtx, &r.reads)
	}
	checkAll(r.subjects, time.Now().Add(20*time.Second), r.v, ruleRecovery, "not Connected within 20s of the start",
		func(ctx context.Context, sub subject) error { return waitState(ctx, sub, health.Connected) })
}

// inject starts the traffic, the probes and the monitor, applies the
// fault schedule, checks the recovery and the fences, and then cancels
// every supervisor under a last wave of faults (the stop rule).
func (r *runner) inject() {
	r.mon.start(r.workCtx, &r.works)
	notify(r.workCtx, &r.works, r.listeners)
	for _, sub := range r.subjects {
		sub.work(r.workCtx, &r.works)
	}
	startProbers(r.workCtx, &r.works, r.subjects, r.v, &r.rt)
	if r.cfg.brk == breakPGExtraConn {
		pgExtraConn(r.t, r.cluster) // until the next PostgreSQL restart
	}
	in := &injector{t: r.t, subjects: r.subjects, servers: r.servers, cluster: r.cluster, pg: r.pg, helper: r.helper}
	schedule := plan(r.cfg.seed, r.cfg.duration, planSize{subjects: len(r.subjects), servers: len(r.servers), pg: true})
	done := r.phase("faults")
	ended := in.run(schedule, time.Now(), r.cfg.duration)
	done()
	if r.cfg.brk == breakKeepFault {
		r.ws[0].window.begin()
		r.ws[0].proxy.Disable()
	}
	done = r.phase("recovery")
	r.sum.recovered = checkRecovery(r.subjects, ended, r.v)
	checkFences(r.subjects, r.v)
	done()

	defer r.phase("stop wave")()
	wave := in.applyAll(stopWave(r.cfg.seed, len(r.subjects)))
	pause(context.Background(), stopWaveHold) // the faults bite: pings and calls hang
	r.cancelSupervisors()
	in.removeAll(wave)
	r.sum.faults, r.sum.skipped = in.applied, in.skipped
}

// cancelSupervisors stops the traffic, cancels every Run and checks that
// each returns in time.
func (r *runner) cancelSupervisors() {
	r.cancelWork()
	r.works.Wait()
	r.mon.once(context.Background()) // a last sweep of the connection counts
	cancelled := time.Now()
	r.cancelRun()
	if r.cfg.brk == breakPGExtraConn {
		pgExtraConn(r.t, r.cluster) // and one after cancel, for the stop rule
	}
	if r.cfg.brk == breakLeakConn {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		r.ws[0].openExtra(ctx, true)
		cancel()
	}
	checkStopped(r.subjects, cancelled, r.v)
	r.stopped = true
}

// stop cancels the supervisors (unless inject did), ends the readers and
// checks that the servers see nothing left open.
func (r *runner) stop() {
	defer r.phase("closing")()
	if !r.stopped {
		r.cancelSupervisors()
	}
	r.cancelRead()
	r.reads.Wait()
	r.sum.leakedConns = checkClosed(r.live, r.helper, r.pgNames(), r.v)
	for _, w := range r.ws {
		w.closeExtra()
	}
	if r.cfg.brk == breakLeakGoroutine {
		leakGoroutine()
	}
}

// phase starts timing a phase; the func it returns ends it.
func (r *runner) phase(name string) func() {
	start := time.Now()
	return func() {
		r.sum.phases = append(r.sum.phases, fmt.Sprintf("%s %v", name, time.Since(start).Round(100*time.Millisecond)))
	}
}

func (r *runner) summary() summary {
	s := r.sum
	s.collect(r.suite)
	s.rt = &r.rt
	s.peakGos = r.mon.peak.Load()
	s.violations = r.v.count()
	s.elapsed = time.Since(r.began)
	return s
}
