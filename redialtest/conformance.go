package redialtest

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

// TestConnector runs every conformance case against the client h builds,
// each as a subtest of t named after the case, one after the other, and
// logs a table of the outcomes: pass, skip (why) or known (the defect).
// Each case starts the case's server (h.Start, or h.Target) and puts a
// Proxy in front of it: the client dials the Proxy, and the faults that
// need no protocol knowledge are the Proxy's. A case that needs what h or
// its server does not offer (in parentheses) is skipped, saying what.
//
//   - bad-options: each bad supervisor setting, and each of h.Bad, is one
//     error wrapping supervisor.ErrInvalidOptions that names the field once
//     (`<pkg>: <Field> <value>: <what>`), and no client.
//   - reconnect-after-kill: every connection killed and new ones refused,
//     the loss shows, attempts are retried, and the client reconnects once
//     the server is back; a stream yields the break, then the new data.
//   - refusal-retried: a server refusing connections is retried, Run going
//     on, and connected to once it accepts.
//   - stall: a connection whose server stops answering, left open, is found
//     within h.Liveness, with an error wrapping h.Silent, and replaced.
//   - drain (a client with Drain): Drain with the streams ranging returns nil,
//     Run returns nil at Stopped, and every stream ends by itself without
//     an error: a goodbye is no break.
//   - blackhole: a server that accepts and answers nothing never holds the
//     client: attempts end and come again, and it connects once healed.
//   - no-leak: once Run returned and the streams ended, no connection is
//     left open and no goroutine the client started runs, stopped while
//     connected or while its server was down (Counter: its sessions too).
//   - order-stopped: after Run's ctx ends, the health channel closes after
//     the final Status, Stopped; Err is nil; the streams end by themselves.
//   - order-failed: a client that gives up (MaxAttempts) closes the health
//     channel after Failed, with Err set by then (a slow Logger still
//     writing), and Done closes with Err what Run returned.
//   - panic-classify, panic-logger, panic-connect (h.Hook), panic-on-connect
//     (h.OnConnect): a panic in Settings.Classify, the Logger's handler, the
//     per-attempt hook or OnConnect ends Run with a panic of the same value,
//     after Failed wrapping supervisor.ErrPanicked and Done and the health
//     channels closed; nothing is left running.
//   - timeout-connect (h.Hook), timeout-on-connect (h.OnConnect): a hook or
//     OnConnect that ignores its ctx does not hold the attempt past
//     ConnectTimeout, and Run returns on its ctx while the callback blocks.
//   - permanent-refusal (Refuser): a refusal for good ends Run at the first
//     attempt (ErrFailed, saying h.Refusal) and every stream; none spins.
//   - secrets-refused (h.Secrets, Refuser), secrets-closed (h.Secrets,
//     ConnCloser), secrets-after-run (h.Secrets), secrets-callbacks
//     (h.Secrets, h.Hook): secrets that a refusal, a close reason, the
//     answer to the client's goodbye or the program's callbacks' errors
//     hold show nowhere, in no derived form: not in Run's error, Err,
//     Status, History, the log, a stream's errors, nor what reflection
//     reaches in them (Echoer: the server did echo them).
//
// A case named in h.Skip is skipped with its reason; one named in h.Known
// runs apart and is skipped with the defect while it fails, and fails the
// test once it passes. Call it from a test that runs alone, not beside
// parallel ones: no-leak and the panic cases look at every goroutine.
func TestConnector(t *testing.T, h Harness) {
	for name := range h.Skip {
		if !slices.ContainsFunc(cases, func(c tcase) bool { return c.name == name }) {
			t.Errorf("redialtest: the Skip table names %q, which is no case", name)
		}
	}
	for name := range h.Known {
		if !slices.ContainsFunc(cases, func(c tcase) bool { return c.name == name }) {
			t.Errorf("redialtest: the Known table names %q, which is no case", name)
		}
	}
	if h.New == nil || h.Liveness <= 0 || (h.Target == "" && h.Start == nil) {
		t.Fatalf("redialtest: a Harness needs New, a positive Liveness, and Target or Start")
	}
	var table []string
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var why string
			defer func() { table = append(table, outcome(t, c.name, why, h.Known[c.name])) }()
			if w, ok := h.Skip[c.name]; ok {
				why = "not applicable: " + w
				t.Skip(why)
			}
			if why = c.lacks(h, nil); why != "" {
				t.Skip(why)
			}
			defect, known := h.Known[c.name]
			switch {
			case !known || os.Getenv(childEnv) == t.Name():
				if why = runCase(t, h, c); why != "" {
					t.Skip(why)
				}
			case c.crash:
				runChild(t, h, defect)
			default:
				runApart(t, h, c, defect)
			}
		})
	}
	t.Logf("redialtest: %s, %d cases:\n%s", t.Name(), len(cases), strings.Join(table, "\n"))
}

// runCase runs c on a new env, unless its server lacks what c needs:
// then it returns why.
func runCase(t testing.TB, h Harness, c tcase) string {
	e := newEnv(t, h)
	if why := c.lacks(h, e.srv); why != "" {
		return why
	}
	c.run(e)
	return ""
}

// outcome is t's line of the table.
func outcome(t *testing.T, name, why, defect string) string {
	switch {
	case t.Failed():
		return fmt.Sprintf("  %-20s FAIL", name)
	case !t.Skipped():
		return fmt.Sprintf("  %-20s pass", name)
	case why == "" && defect != "":
		return fmt.Sprintf("  %-20s known: %s", name, defect)
	}
	return fmt.Sprintf("  %-20s skip: %s", name, why)
}

// childEnv names, in a child process, the one known failure it runs.
const childEnv = "REDIALTEST_CHILD"

// runChild runs the known failure t in a child process of the test
// binary, and skips t when it fails there, as it should today.
func runChild(t *testing.T, h Harness, defect string) {
	if h.NoChild != "" {
		t.Skipf("known failure: %s. Not run: it would crash the test binary, and %s", defect, h.NoChild)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+runPattern(t.Name()), "-test.count=1", "-test.v", "-test.timeout=45s")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err == nil && strings.Contains(string(out), "--- PASS: "+t.Name()+" ") {
		t.Errorf("listed as a known failure (%s), but it passes: remove it from the Known table", defect)
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

var failLine = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

// summary returns what a child's output says of why it failed: its panic
// and its first failure lines.
func summary(out string) string {
	var keep []string
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "panic:") || failLine.MatchString(line) {
			keep = append(keep, strings.Join(strings.Fields(line), " "))
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
		if why := runCase(rec, h, c); why != "" {
			rec.fail(why)
		}
	}()
	<-done
	if msg, failed := rec.result(); failed {
		t.Skipf("known failure: %s. It fails today: %s", defect, msg)
	}
	t.Errorf("listed as a known failure (%s), but it passes: remove it from the Known table", defect)
}

// recorder is a testing.TB whose failures are recorded rather than
// reported: Fatal and FailNow end the case's goroutine, as they do.
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
		r.failed, r.first = true, strings.TrimSpace(msg)
	}
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
