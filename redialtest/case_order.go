package redialtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// drain reads ch until it closes and returns the last Status; it fails t
// when ch is still open after wait.
func drain(t testing.TB, ch <-chan health.Status) health.Status {
	t.Helper()
	last, closed := drainWithin(ch, wait)
	if !closed {
		t.Fatalf("the health channel is still open after %v; last status %v", wait, last.State)
	}
	return last
}

func drainWithin(ch <-chan health.Status, d time.Duration) (last health.Status, closed bool) {
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for {
		select {
		case st, open := <-ch:
			if !open {
				return last, true
			}
			last = st
		case <-timeout.C:
			return last, false
		}
	}
}

// orderFailed: a client that gives up (MaxAttempts against a refusing
// server) closes its health channel after the final Status, Failed, and
// Err says why as soon as it has closed, even while a slow Logger still
// writes the "gave up" record; Done closes after Run returned, with Err
// what Run returned.
func orderFailed(e *env) {
	t := e.t
	o := e.defaults()
	o.Settings.MaxAttempts = 2
	release := make(chan struct{})
	t.Cleanup(func() { closeOnce(release) })
	o.Settings.Logger = loggerBlocking(o.Settings.Logger, release)
	e.p.Refuse()
	r := e.start(o)
	ch, unsub := r.c.Subscribe()
	defer unsub()
	last := drain(t, ch) // ends by itself, as `for st := range ch` does
	errAtClose := r.c.Err()
	closeOnce(release)
	if last.State != health.Failed {
		t.Errorf("the last Status on the channel is %v, want Failed", last.State)
	}
	if errAtClose == nil {
		t.Fatalf("Err is nil right after the health channel closed on Failed")
	}
	wantIs(t, errAtClose, supervisor.ErrFailed, "Err()")
	r.waitEnded("after Failed")
	if err := r.c.Err(); err != r.runErr || err != errAtClose {
		t.Errorf("Err() is %v; Run returned %v; Err() was %v when the channel closed", err, r.runErr, errAtClose)
	}
	late, unsubLate := r.c.Subscribe()
	defer unsubLate()
	if st, open := <-late; !open || st.State != health.Failed {
		t.Errorf("a late subscriber got %v (open %v), want the final Status, Failed", st.State, open)
	}
	if _, open := <-late; open {
		t.Errorf("a late subscriber's channel is not closed after the final Status")
	}
}

// orderStopped: after Run's ctx ended, the channel closes after the final
// Status, Stopped; Err is nil and Run returned nil; the streams ended by
// themselves, and one started now ends at once without a yield.
func orderStopped(e *env) {
	t := e.t
	r := e.start(e.defaults())
	until(t, r.c, "connected", connected(1))
	ch, unsub := r.c.Subscribe()
	defer unsub()
	r.stopReaders(wait, t.Fatalf)
	r.cancel()
	if last := drain(t, ch); last.State != health.Stopped {
		t.Errorf("the last Status on the channel is %v, want Stopped", last.State)
	}
	if err := r.c.Err(); err != nil {
		t.Errorf("Err() is %v once the channel closed on Stopped, want nil", err)
	}
	mustNot(t, r.stop(), "Run")
	if !within(r.c.Done(), 0) {
		t.Errorf("Done is open after Run returned")
	}
	if err := r.c.Err(); err != nil {
		t.Errorf("Err() is %v after Run returned nil", err)
	}
	endsAtOnce(t, e.h, r.c, "Stopped", 0)
}

// permanentRefusal: a refusal for good ends Run (ErrFailed, at the first
// attempt) and every stream, those that ranged before and one that starts
// after; none spins.
func permanentRefusal(e *env) {
	t, h := e.t, e.h
	e.refuseForGood()
	r := e.startReading(e.defaults(), h.Streams)
	r.waitEnded("after a refusal for good")
	if !errors.Is(r.runErr, supervisor.ErrFailed) {
		t.Fatalf("Run's error does not wrap ErrFailed: %v", r.runErr)
	}
	wantSays(t, r.runErr, h.Refusal, "Run's error")
	st := r.c.Status()
	if st.State != health.Failed || st.ConsecutiveFailures != 1 {
		t.Errorf("the final Status is %v after %d failures, want Failed at the first attempt", st.State, st.ConsecutiveFailures)
	}
	if !backoff.IsPermanent(st.Err) {
		t.Errorf("Status.Err is not permanent: %v", st.Err)
	}
	for _, rd := range r.readers {
		if !within(rd.done, atOnce) {
			t.Errorf("the %s loop did not end within %v after Failed", rd.name, atOnce)
			continue
		}
		if len(rd.events) > 1 || rd.items() > 0 {
			t.Errorf("the %s loop yielded %d times, %d items: want at most one error", rd.name, len(rd.events), rd.items())
		}
	}
	endsAtOnce(t, h, r.c, "Failed", 1)
}

// atOnce bounds how long a stream may take to end once its client is
// done: it wakes on a channel, never on a timer.
const atOnce = time.Second

// endsAtOnce checks that a loop over each stream, started once c is done,
// ends by itself within atOnce, yielding no item and at most errs errors.
func endsAtOnce(t testing.TB, h Harness, c Client, state string, errs int) {
	t.Helper()
	for _, s := range h.Streams {
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		began, n := time.Now(), 0
		for _, err := range s.Range(ctx, c) {
			if n++; n > errs {
				break
			}
			if err == nil {
				t.Errorf("a %s loop started after %s yielded an item", s.Name, state)
			}
		}
		if ctx.Err() != nil {
			t.Errorf("a %s loop started after %s waited for its ctx", s.Name, state)
		}
		if d := time.Since(began); d >= atOnce {
			t.Errorf("a %s loop started after %s took %v to end", s.Name, state, d)
		}
		if n > errs {
			t.Errorf("a %s loop started after %s yielded %d times, want at most %d", s.Name, state, n, errs)
		}
		cancel()
	}
}
