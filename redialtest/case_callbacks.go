package redialtest

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// panicValue is what a case's callback panics with.
type panicValue struct{ where string }

func (p *panicValue) String() string { return "redialtest: a panic in " + p.where }

// panicWait bounds what a panic case waits for: the panic ends the
// supervisor at once, and a wedged one would make every wait time out.
const panicWait = 3 * time.Second

// panicIn: a panic in the program's callback is recovered where it
// happened; the supervisor closes the connection, publishes Failed with
// an error wrapping supervisor.ErrPanicked, closes Done and the health
// channels, and Run panics again on its caller's goroutine with the same
// value. Nothing is left running.
func panicIn(callback string) func(*env) {
	return func(e *env) {
		t, h := e.t, e.h
		before := goroutines()
		o := e.defaults()
		v := &panicValue{where: callback}
		switch callback {
		case "connect":
			o.BeforeConnect = func(context.Context) (string, error) { panic(v) }
		case "on-connect":
			o.OnConnect = func(context.Context) error { panic(v) }
		case "classify":
			e.p.Refuse()
			o.Settings.Classify = func(error) error { panic(v) }
		case "logger":
			o.Settings.Logger = loggerPanicking(o.Settings.Logger, "connected", v)
		}
		r := e.start(o)
		ch, unsub := r.c.Subscribe()
		defer unsub()
		if !within(r.ended, panicWait) {
			t.Fatalf("Run neither returned nor panicked within %v after a panic in %s", panicWait, callback)
		}
		if r.panic != v {
			t.Errorf("Run panicked with %v, want the callback's value %v", r.panic, v)
		}
		if !within(r.c.Done(), 0) {
			t.Errorf("Done is open after Run panicked")
		}
		err := r.c.Err()
		wantIs(t, err, supervisor.ErrPanicked, "Err()")
		wantSays(t, err, v.String(), "Err()")
		if callback == "connect" {
			wantSays(t, err, h.Hook+" panicked", "Err() (the program's hook, not the Connector's method)")
		}
		st := r.c.Status()
		if st.State != health.Failed {
			t.Errorf("the final state is %v, want Failed", st.State)
		}
		wantIs(t, st.Err, supervisor.ErrPanicked, "Status.Err")
		if _, closed := drainWithin(ch, panicWait); !closed {
			t.Errorf("the health channel is still open %v after Run panicked", panicWait)
		}
		r.stopRd()
		for _, rd := range r.readers {
			if !within(rd.done, panicWait) {
				t.Errorf("the %s loop did not end within %v", rd.name, panicWait)
			}
		}
		noneLeaked(t, before)
	}
}

// timeoutIn: a callback of the attempt that ignores its ctx does not hold
// the attempt past ConnectTimeout: the attempt is abandoned (Backoff, an
// error that says so), the next one comes, and Run returns when its ctx
// ends, while the callback still blocks.
func timeoutIn(callback string) func(*env) {
	return func(e *env) {
		const connectTimeout = 300 * time.Millisecond
		t := e.t
		o := e.defaults()
		o.Settings.ConnectTimeout = connectTimeout
		release := make(chan struct{})
		switch callback {
		case "connect":
			o.BeforeConnect = func(context.Context) (string, error) { <-release; return "late", nil }
		case "on-connect":
			o.OnConnect = func(context.Context) error { <-release; return nil }
		}
		r := e.start(o)
		t.Cleanup(func() { closeOnce(release) }) // before start's cleanup: LIFO
		bound := 10 * connectTimeout
		st := waitStatus(t, r.c, bound, "the attempt abandoned at ConnectTimeout", func(st health.Status) bool {
			return st.State == health.Backoff && st.Err != nil
		})
		if !errors.Is(st.Err, context.DeadlineExceeded) && !strings.Contains(st.Err.Error(), "timed out") {
			t.Errorf("the error does not say the attempt timed out: %v", st.Err)
		}
		waitStatus(t, r.c, bound, "a second attempt", func(st health.Status) bool { return st.ConsecutiveFailures >= 2 })
		r.stopReaders(wait, t.Fatalf)
		r.cancel()
		if !within(r.ended, bound) {
			t.Fatalf("Run did not return within %v after its ctx ended, while the %s callback blocked", bound, callback)
		}
		r.stop()
	}
}

func closeOnce(ch chan struct{}) {
	select {
	case <-ch:
	default:
		close(ch)
	}
}
