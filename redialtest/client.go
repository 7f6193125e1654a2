package redialtest

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// defaults are the options every case starts from: a short deterministic
// backoff, a ConnectTimeout no loaded machine reaches, and a stock slog
// JSON handler at Debug writing to logs.
func (e *env) defaults() Options {
	logs := &e.logs
	return Options{Server: e.srv, Settings: supervisor.Settings{
		Backoff:        backoff.Config{Strategy: backoff.Exponential, Base: 20 * time.Millisecond, Cap: 200 * time.Millisecond},
		ConnectTimeout: 5 * time.Second,
		Logger:         slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}}
}

// running is one client a case runs, with its streams read as a program
// reads them.
type running struct {
	t       testing.TB
	c       Client
	cancel  context.CancelFunc
	ended   chan struct{} // closed when Run returned or panicked
	runErr  error
	panic   any // what Run panicked with
	readers []*reader
	stopRd  context.CancelFunc
}

// start builds a client through the Proxy with o and starts Run and a
// reader of the first stream (the program's loop), each on its goroutine:
// the reader first, so that it waits for the first connection as a
// program's does. The test's cleanup stops them.
func (e *env) start(o Options) *running {
	e.t.Helper()
	return e.startReading(o, e.h.Streams[:min(1, len(e.h.Streams))])
}

// startReading is start with a reader of each of streams.
func (e *env) startReading(o Options, streams []Stream) *running {
	t := e.t
	t.Helper()
	c, err := e.h.New(t, e.p.Addr(), o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if isNil(c) {
		t.Fatalf("New returned neither a client nor an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	rctx, stopRd := context.WithCancel(context.Background())
	r := &running{t: t, c: c, cancel: cancel, ended: make(chan struct{}), stopRd: stopRd}
	for _, s := range streams {
		r.readers = append(r.readers, read(rctx, c, s))
	}
	go func() {
		defer close(r.ended)
		defer func() { r.panic = recover() }()
		r.runErr = c.Run(ctx)
	}()
	t.Cleanup(func() { r.stopWithin(wait, t.Errorf) })
	return r
}

// stop ends Run and returns its error. The streams end by themselves once
// Run returned, as they do at Stopped: their ctx is not
// ended, so a stream yields whatever Run's goodbye brought (the order
// redial's adapters recommend); but a StopFirst stream ends first.
func (r *running) stop() error {
	r.t.Helper()
	r.stopWithin(wait, r.t.Fatalf)
	return r.runErr
}

func (r *running) stopWithin(d time.Duration, fail func(string, ...any)) {
	defer r.stopRd()
	r.stopReaders(d, fail)
	r.cancel()
	if !within(r.ended, d) {
		fail("Run did not return within %v after its ctx ended", d)
		return
	}
	for _, rd := range r.readers {
		if !within(rd.done, d) {
			fail("the %s loop did not end within %v after Run returned", rd.name, d)
		}
	}
}

// stopReaders ends the loops that must end before Run does.
func (r *running) stopReaders(d time.Duration, fail func(string, ...any)) {
	for _, rd := range r.readers {
		if rd.stopFirst {
			rd.cancel()
			if !within(rd.done, d) {
				fail("the %s loop did not end within %v after its ctx ended", rd.name, d)
			}
		}
	}
}

// waitEnded waits for Run to return (or panic) by itself.
func (r *running) waitEnded(what string) {
	r.t.Helper()
	if !within(r.ended, wait) {
		st := r.c.Status()
		r.t.Fatalf("Run did not return within %v %s; status %v, err %v", wait, what, st.State, st.Err)
	}
}

// within reports whether ch is closed within d.
func within(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// show records in s everything the client showed: Run's error, Err, the
// Status, every transition of History, the streams' errors and its Name.
func (r *running) show(s *shown) {
	s.err("Run's error", r.runErr)
	s.err("Err()", r.c.Err())
	st := r.c.Status()
	s.err("Status.Err", st.Err)
	s.text("Status.Name", st.Name)
	s.text("Status.Endpoint", st.Endpoint)
	s.text("Name()", r.c.Name())
	for _, tr := range r.c.History() {
		s.err("History ("+tr.From.String()+" to "+tr.To.String()+")", tr.Err)
	}
	for _, rd := range r.readers {
		for _, err := range rd.errs() {
			s.err(rd.name+"'s error", err)
		}
	}
}

// reader is a program's loop over one stream.
type reader struct {
	name      string
	done      chan struct{}
	cancel    context.CancelFunc
	stopFirst bool

	mu      sync.Mutex
	events  []event
	changed chan struct{} // closed on the next event; made when someone waits
}

// event is one yield of a stream: an item, or an error.
type event struct {
	item any
	err  error
}

func read(ctx context.Context, c Client, s Stream) *reader {
	ctx, cancel := context.WithCancel(ctx)
	rd := &reader{name: s.Name, done: make(chan struct{}), cancel: cancel, stopFirst: s.StopFirst}
	go func() {
		defer close(rd.done)
		for item, err := range s.Range(ctx, c) {
			rd.mu.Lock()
			rd.events = append(rd.events, event{item, err})
			if rd.changed != nil {
				close(rd.changed)
				rd.changed = nil
			}
			rd.mu.Unlock()
		}
	}()
	return rd
}

func (rd *reader) errs() []error {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	var errs []error
	for _, e := range rd.events {
		if e.err != nil {
			errs = append(errs, e.err)
		}
	}
	return errs
}

// waitFor waits until the events so far satisfy ok, failing t after wait.
func (rd *reader) waitFor(t testing.TB, what string, ok func([]event) bool) {
	t.Helper()
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	for {
		rd.mu.Lock()
		events := rd.events
		if rd.changed == nil {
			rd.changed = make(chan struct{})
		}
		changed := rd.changed
		rd.mu.Unlock()
		if ok(events) {
			return
		}
		select {
		case <-changed:
		case <-rd.done:
			rd.mu.Lock()
			events = rd.events
			rd.mu.Unlock()
			if !ok(events) {
				t.Fatalf("the %s loop ended before %s; it yielded %d times", rd.name, what, len(events))
			}
			return
		case <-timeout.C:
			t.Fatalf("the %s loop yielded no %s within %v", rd.name, what, wait)
		}
	}
}

// reading waits until the program's loop reads the connection: it yielded
// the connection's greeting, when its stream greets.
func (r *running) reading(t testing.TB, h Harness) {
	t.Helper()
	for i, rd := range r.readers {
		if h.Streams[i].Greets {
			rd.waitFor(t, "item", func(ev []event) bool { return slices.ContainsFunc(ev, func(e event) bool { return e.err == nil }) })
		}
	}
}

// hasError reports whether events hold an error.
func hasError(events []event) bool {
	for _, e := range events {
		if e.err != nil {
			return true
		}
	}
	return false
}

// itemAfterError reports whether events hold an error and then an item:
// the next connection's data after a break.
func itemAfterError(events []event) bool {
	broke := false
	for _, e := range events {
		if e.err != nil {
			broke = true
		} else if broke {
			return true
		}
	}
	return false
}

// until waits for a Status of c that satisfies ok.
func until(t testing.TB, c Client, what string, ok func(health.Status) bool) health.Status {
	t.Helper()
	return waitStatus(t, c, wait, what, ok)
}

// items returns how many items (not errors) the loop yielded.
func (rd *reader) items() int {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	n := 0
	for _, e := range rd.events {
		if e.err == nil {
			n++
		}
	}
	return n
}
