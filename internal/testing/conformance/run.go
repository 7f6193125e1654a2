package conformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// tcase is one case of the suite.
type tcase struct {
	name string
	// crash: as a known failure, it crashes or wedges the test binary
	// (a panic on a goroutine of the supervisor's): it runs in a child.
	crash bool
	run   func(t testing.TB, h Harness)
}

// Run runs every case of the suite against h, each as a subtest of t, one
// after the other (the goroutine case needs the process to itself).
func Run(t *testing.T, h Harness) {
	for name := range h.Skip {
		if !slices.ContainsFunc(cases, func(c tcase) bool { return c.name == name }) {
			t.Errorf("the Skip table names %q, which is no case of the suite", name)
		}
	}
	for name := range h.Known {
		if !slices.ContainsFunc(cases, func(c tcase) bool { return c.name == name }) {
			t.Errorf("the Known table names %q, which is no case of the suite", name)
		}
	}
	// A case the Skip table names is not run, whatever Known says: a
	// harness's Known starts from SupervisorDefects.
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if why, ok := h.Skip[c.name]; ok {
				t.Skip("not applicable: " + why)
			}
			defect, known := h.Known[c.name]
			switch {
			case !known || os.Getenv(childEnv) == t.Name():
				c.run(t, h)
			case c.crash:
				runChild(t, h, defect)
			default:
				runApart(t, h, c, defect)
			}
		})
	}
}

// childEnv names, in a child process, the one known failure it runs.
const childEnv = "REDIAL_CONFORMANCE_CHILD"

// runChild runs the known failure t in a child process of the test
// binary, and skips t when it fails there, as it should today.
func runChild(t *testing.T, h Harness, defect string) {
	if h.NoChild != "" {
		t.Skipf("known failure: %s. Not run: it would crash or wedge the test binary, and %s", defect, h.NoChild)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+runPattern(t.Name()), "-test.count=1", "-test.v", "-test.timeout=45s")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err == nil && strings.Contains(string(out), "--- PASS: "+t.Name()+" ") {
		t.Errorf("listed as a known failure (%s), but it passes: remove it from the harness's Known table", defect)
		return
	}
	t.Skipf("known failure: %s. It fails today, in a child process: %s", defect, summary(string(out)))
}

// runPattern is the -test.run pattern that matches the test named name
// and no other.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// summary returns what a child's output says of why it failed: its
// panic, or its failures' Error and Messages lines.
func summary(out string) string {
	var keep []string
	for line := range strings.Lines(out) {
		l := strings.Join(strings.Fields(line), " ")
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "Error:") || strings.HasPrefix(l, "Messages:") {
			keep = append(keep, l)
		}
		if len(keep) == 4 {
			break
		}
	}
	if len(keep) == 0 {
		return "its output says nothing more; it exited non-zero"
	}
	return strings.Join(keep, " ")
}

// runApart runs the known failure c on a TB that records failures instead
// of failing t, and skips t when it failed, as it should today.
func runApart(t *testing.T, h Harness, c tcase, defect string) {
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.run(rec, h)
	}()
	<-done
	if msg, failed := rec.result(); failed {
		t.Skipf("known failure: %s. It fails today: %s", defect, msg)
	}
	t.Errorf("listed as a known failure (%s), but it passes: remove it from the harness's Known table", defect)
}

// recorder is a testing.TB whose failures are recorded rather than
// reported: Fatal and FailNow end the case's goroutine, as they do.
// Cleanup, Context, Name and the logs are t's.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed bool
	first  string
}

func (r *recorder) Helper() {}

func (r *recorder) fail(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.failed {
		r.failed, r.first = true, condense(msg)
	}
}

// condense keeps what a testify message says: the first line of its
// Error and of its Messages.
func condense(msg string) string {
	var keep []string
	for line := range strings.Lines(msg) {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "Error:") || strings.HasPrefix(l, "Messages:") {
			keep = append(keep, strings.Join(strings.Fields(l), " "))
		}
	}
	if len(keep) == 0 {
		return strings.TrimSpace(msg)
	}
	return strings.Join(keep, " ")
}

func (r *recorder) result() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first, r.failed
}

func (r *recorder) Fail()                             { r.fail("failed") }
func (r *recorder) FailNow()                          { r.fail("failed"); runtime.Goexit() }
func (r *recorder) Failed() bool                      { _, f := r.result(); return f }
func (r *recorder) Error(args ...any)                 { r.fail(fmt.Sprintln(args...)) }
func (r *recorder) Errorf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); runtime.Goexit() }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r *recorder) SkipNow()                          { r.fail("skipped"); runtime.Goexit() }
func (r *recorder) Skip(args ...any)                  { r.fail(fmt.Sprintln(args...)); runtime.Goexit() }
func (r *recorder) Skipf(format string, args ...any) {
	r.fail(fmt.Sprintf(format, args...))
	runtime.Goexit()
}
