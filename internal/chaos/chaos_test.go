package chaos

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/redial-go/redial/health"
)

// TestChaos runs every subject under the seeded fault schedule and checks
// the invariants while it runs and at the end; see doc.go.
func TestChaos(t *testing.T) {
	cfg := newConfig(t)
	announce(t, "chaos: "+cfg.String()+"; re-run with -chaos.seed="+uitoa(cfg.seed))
	ignore := append([]goleak.Option{goleak.IgnoreCurrent()}, toxiproxyStuck...)
	var sum summary
	t.Run("run", func(t *testing.T) { sum = runChaos(t, cfg) })
	// Everything the run started has been stopped and closed, its
	// cleanups included: no goroutine of it may be left.
	if err := goleak.Find(ignore...); err != nil {
		sum.leakedGos = strings.Count(err.Error(), " on top of the stack:") // one per goroutine
		sum.violations++
		t.Errorf("chaos violation [%s] run: %d goroutine(s) outlived it: %v", ruleLeak, sum.leakedGos, err)
	}
	releaseLeak()
	announce(t, sum.details())
	announce(t, sum.line())
}

// runChaos is one run, in phases: start, faults, recovery, stop.
func runChaos(t *testing.T, cfg config) summary {
	began := time.Now()
	s := build(t, cfg)
	sum := summary{cfg: cfg}
	runCtx, cancelRun := context.WithCancel(context.Background())
	readCtx, cancelRead := context.WithCancel(context.Background())
	workCtx, cancelWork := context.WithCancel(context.Background())
	defer cancelWork()
	defer cancelRead()
	defer cancelRun()
	var reads, works sync.WaitGroup
	t.Cleanup(func() { // also after a t.Fatal: nothing the run started outlives it
		cancelWork()
		works.Wait()
		cancelRun()
		for _, sub := range s.subjects {
			<-sub.base().runDone
		}
		cancelRead()
		reads.Wait()
	})

	for _, sub := range s.subjects {
		go runSubject(runCtx, sub, cfg)
		sub.consume(readCtx, &reads)
	}
	checkAll(s.subjects, time.Now().Add(20*time.Second), s.v, ruleRecovery, "not Connected within 20s of the start",
		func(ctx context.Context, sub subject) error { return waitState(ctx, sub, health.Connected) })

	var rt rtStats
	mon := &monitor{helper: s.helper, live: s.live, pg: s.pgNames()}
	if s.v.count() == 0 { // the faults, unless the start already failed
		mon.start(workCtx, &works)
		notify(workCtx, &works, s.listeners)
		for _, sub := range s.subjects {
			sub.work(workCtx, &works)
		}
		startProbers(workCtx, &works, s.subjects, s.v, &rt)
		if cfg.brk == breakPGExtraConn {
			pgExtraConn(t, s.cluster) // until the next PostgreSQL restart
		}
		in := &injector{t: t, subjects: s.subjects, servers: s.servers, cluster: s.cluster, pg: s.pg, helper: s.helper}
		ended := in.run(plan(cfg.seed, cfg.duration, planSize{subjects: len(s.subjects), servers: len(s.servers), pg: true}), time.Now(), cfg.duration)
		sum.faults, sum.skipped = in.applied, in.skipped
		if cfg.brk == breakKeepFault {
			s.ws[0].window.begin()
			s.ws[0].proxy.Disable()
		}
		sum.recovered = checkRecovery(s.subjects, ended, s.v)
		checkFences(s.subjects, s.v)
	}
	cancelWork()
	works.Wait()
	mon.once(context.Background()) // a last sweep of the connection counts

	cancelled := time.Now()
	cancelRun()
	if cfg.brk == breakPGExtraConn {
		pgExtraConn(t, s.cluster) // and one after cancel, for the stop rule
	}
	if cfg.brk == breakLeakConn {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		s.ws[0].openExtra(ctx, true)
		cancel()
	}
	checkStopped(s.subjects, cancelled, s.v)
	cancelRead()
	reads.Wait()
	sum.leakedConns = checkClosed(s.live, s.helper, s.pgNames(), s.v)
	for _, w := range s.ws {
		w.closeExtra()
	}
	if cfg.brk == breakLeakGoroutine {
		leakGoroutine()
	}

	sum.collect(s)
	sum.rt = &rt
	sum.peakGos = mon.peak.Load()
	sum.violations = s.v.count()
	sum.elapsed = time.Since(began)
	return sum
}

// runSubject runs sub's supervisor until ctx ends and records how Run
// returned.
func runSubject(ctx context.Context, sub subject, cfg config) {
	b := sub.base()
	b.runErr = sub.run(ctx)
	if cfg.brk == breakSlowRun && b.name == "ws-00" {
		pause(context.Background(), 3*time.Second) // broken on purpose: a Run that returns late
	}
	b.runEnd = time.Now()
	close(b.runDone)
}
