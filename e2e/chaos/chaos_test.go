package chaos

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
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
	announce(t, sum.kinds())
	announce(t, sum.details())
	announce(t, sum.line())
}

// runChaos is one run, in phases: start, faults, recovery (or a stop
// under faults), stop.
func runChaos(t *testing.T, cfg config) summary {
	r := newRunner(t, cfg)
	r.start()
	if r.v.count() == 0 { // unless the start already failed
		r.inject()
	}
	r.stop()
	return r.summary()
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
