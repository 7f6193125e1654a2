package redialtest

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// goroutines returns the stack of every goroutine but the caller's, by id.
func goroutines() map[string]string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for i, g := range strings.Split(string(buf), "\n\n") {
		f := strings.Fields(g)
		if i == 0 || len(f) < 2 || f[0] != "goroutine" {
			continue // the caller's, first
		}
		out[f[1]] = g
	}
	return out
}

// runtimeOwned are the functions at the top of a goroutine the runtime or
// the testing package started on its own.
var runtimeOwned = []string{"os/signal.signal_recv", "os/signal.loop", "runtime.ensureSigM", "testing.(*T).Run", "testing.(*M).", "testing.runTests", "runtime.goexit"}

// leaked returns the stacks of the goroutines not in before, waiting up
// to wait for them to end: a closed connection's goroutines end on their
// own time, and no event says when.
func leaked(before map[string]string) []string {
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		var extra []string
		for id, g := range goroutines() {
			if _, old := before[id]; !old && !owned(g) {
				extra = append(extra, g)
			}
		}
		if len(extra) == 0 || time.Now().After(deadline) {
			return extra
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

func owned(stack string) bool {
	lines := strings.Split(stack, "\n")
	if len(lines) < 2 {
		return true
	}
	for _, fn := range runtimeOwned {
		if strings.HasPrefix(lines[1], fn) {
			return true
		}
	}
	return false
}

// noneLeaked fails t with the stacks of the goroutines started since
// before that still run.
func noneLeaked(t testing.TB, before map[string]string) {
	t.Helper()
	if extra := leaked(before); len(extra) > 0 {
		t.Errorf("%d goroutines left running once Run returned:\n\n%s", len(extra), strings.Join(extra, "\n\n"))
	}
}
