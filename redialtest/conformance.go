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
// A case runs through a Proxy in front of the case's server; one that
// needs what h or its server does not offer is skipped, saying what.
//
// The cases and their contracts (Harness fields and Server interfaces a
// case needs in brackets):
//
//   - bad-options: every bad supervisor setting, and each of h.Bad, is
//     one error wrapping supervisor.ErrInvalidOptions that names the field
//     once (`<pkg>: <Field> <value>: <what>`), with no client.
//   - reconnect-after-kill: when every connection is killed and new ones
//     are refused, the loss shows, attempts are retried, and the client
//     reconnects once the server is back; its streams yield the break
//     once and go on with the new connection.
//   - refusal-retried: a server refusing every connection is retried
//     (Backoff, Run goes on) and connected to once it accepts again.
//   - stall: a connection whose server stops answering, open, is found
//     within h.Liveness and replaced; its error wraps h.Silent.
//   - blackhole: a server that accepts and answers nothing never holds
//     the client: attempts end and come again, and it connects once healed.
//   - no-leak: once Run returned and the streams ended, no goroutine the
//     client started runs and no connection is left open, stopped while
//     connected and stopped while its server was down [Counter: sessions].
//   - order-stopped: after Run's ctx ends, the health channel closes after
//     the final Status, Stopped; Err is nil; the streams end by themselves.
//   - order-failed: a client that gives up (MaxAttempts) publishes Failed
//     last, Err says why as soon as the channel closed (a slow Logger
//     still writing), Done closes with Err what Run returned.
//   - panic-classify, panic-logger, panic-connect [Hook], panic-on-connect
//     [OnConnect]: a panic in the program's callback ends Run with a panic
//     of the same value on its caller's goroutine, after Failed with an
//     error wrapping supervisor.ErrPanicked, Done and the health channels
//     closed; nothing left running.
//   - timeout-connect [Hook], timeout-on-connect [OnConnect]: a callback
//     that ignores its ctx does not hold the attempt past ConnectTimeout,
//     and Run returns when its ctx ends while the callback still blocks.
//   - permanent-refusal [Refuser]: a refusal for good ends Run (ErrFailed,
//     at the first attempt, saying h.Refusal) and every stream, those
//     ranging before and one started after; none spins.
//   - secrets-refused [Secrets, Refuser], secrets-closed [Secrets,
//     ConnCloser], secrets-after-run [Secrets], secrets-callbacks [Secrets,
//     Hook]: secrets the server echoes (a refusal, a close reason, the
//     answer to the client's goodbye) or the program's callbacks' errors
//     hold, in every derived form, show nowhere: not in Run's error, Err,
//     Status, History, the log, a stream's errors, nor anything
//     reflection reaches in them [Echoer: the server did echo them].
//
// A case named in h.Skip is skipped with its reason; one named in h.Known
// runs apart and is skipped with the defect while it fails.
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
