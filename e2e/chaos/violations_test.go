package chaos

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// The invariants, as named in violation messages.
const (
	ruleOneConn   = "one-connection"
	ruleStop      = "stop"
	ruleRoundTrip = "round-trip"
	ruleSequence  = "sequence"
	ruleRecovery  = "recovery"
	ruleLeak      = "leak"
	ruleGaveUp    = "gave-up"
)

// maxShown is how many violations of one rule by one subject are printed;
// the rest are only counted.
const maxShown = 3

// violations records broken invariants. Each fails the test at once
// (t.Errorf, safe from any goroutine while the test runs) with a message
// naming the rule and the subject. Safe for concurrent use.
type violations struct {
	t    testing.TB
	n    atomic.Int64
	lost atomic.Int64 // sequence numbers skipped without a signal

	mu    sync.Mutex
	shown map[string]int
	notes int
}

func newViolations(t testing.TB) *violations {
	return &violations{t: t, shown: map[string]int{}}
}

// add records one violation of rule by subject.
func (v *violations) add(rule, subject, format string, args ...any) {
	v.n.Add(1)
	key := rule + "/" + subject
	v.mu.Lock()
	v.shown[key]++
	n := v.shown[key]
	v.mu.Unlock()
	switch {
	case n <= maxShown:
		v.t.Errorf("chaos violation [%s] %s: %s", rule, subject, fmt.Sprintf(format, args...))
	case n == maxShown+1:
		v.t.Errorf("chaos violation [%s] %s: more violations of this rule are counted, not shown", rule, subject)
	}
}

func (v *violations) count() int64 { return v.n.Load() }

// maxNotes is how many notes a run logs.
const maxNotes = 20

// note logs something worth a look that breaks no invariant (a slow or
// excused round trip), up to maxNotes a run.
func (v *violations) note(subject, format string, args ...any) {
	v.mu.Lock()
	v.notes++
	n := v.notes
	v.mu.Unlock()
	if n <= maxNotes {
		v.t.Logf("chaos note %s: %s", subject, fmt.Sprintf(format, args...))
	}
}
