package conformance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// The cases, in the order Run runs them. A harness names them in its Skip
// and Known tables.
var cases = []tcase{
	{name: "bad-options", run: badOptions},
	{name: "secrets-refused", run: secretsRefused},
	{name: "secrets-closed", run: secretsClosed},
	{name: "secrets-after-run", run: secretsAfterRun},
	{name: "secrets-callbacks", run: secretsCallbacks},
	{name: "panic-connect", crash: true, run: panicIn("connect")},
	{name: "panic-on-connect", crash: true, run: panicIn("on-connect")},
	{name: "panic-classify", crash: true, run: panicIn("classify")},
	{name: "panic-logger", crash: true, run: panicIn("logger")},
	{name: "order-failed", run: orderFailed},
	{name: "order-stopped", run: orderStopped},
	{name: "permanent-refusal", run: permanentRefusal},
	{name: "timeout-connect", run: timeoutIn("connect")},
	{name: "timeout-on-connect", run: timeoutIn("on-connect")},
	{name: "no-leak", run: noLeak},
	{name: "reconnect-after-kill", run: reconnectAfterKill},
	{name: "stall", run: stall},
	{name: "drain", run: drained},
}

// has reports whether h has the callback the panic case of that name
// makes panic: a harness skips the case when its adapter has none.
func (h Harness) has(callback string) bool {
	_, skipped := h.Skip["panic-"+callback]
	return !skipped
}

// badOptions: every bad option is one error that wraps
// supervisor.ErrInvalidOptions and says `<package>: <Field> <value>: <what
// is wrong>` once, without stutter; no client comes with it. A bad
// Backoff keeps backoff.ErrInvalidOptions too.
func badOptions(t testing.TB, h Harness) {
	srv := h.Start(t)
	var logs testkit.Buffer
	for _, b := range []struct {
		field, want string
		set         func(*supervisor.Settings)
	}{
		{"Supervisor.ConnectTimeout", "", func(s *supervisor.Settings) { s.ConnectTimeout = -time.Second }},
		{"Supervisor.MaxAttempts", "", func(s *supervisor.Settings) { s.MaxAttempts = -1 }},
		{"Supervisor.StableAfter", "", func(s *supervisor.Settings) { s.StableAfter = -time.Second }},
		{"Supervisor.Backoff.Base", "", func(s *supervisor.Settings) { s.Backoff.Base = -time.Second }},
		{"", h.Pkg + ": Supervisor.Backoff.Cap 48h0m0s: longer than 24h0m0s", func(s *supervisor.Settings) { s.Backoff.Cap = 48 * time.Hour }},
	} {
		o := defaults(&logs)
		b.set(&o.Settings)
		c, err := h.New(t, srv, o)
		checkBad(t, h.Pkg, b.field, b.want, err)
		if strings.Contains(b.field+b.want, "Backoff") {
			assert.ErrorIs(t, err, backoff.ErrInvalidOptions, "a bad Backoff loses its sentinel")
		}
		assert.Nil(t, c, "a client came with the error for %s", b.field+b.want)
	}
	for _, b := range h.Bad {
		checkBad(t, h.Pkg, b.Field, b.Want, b.New())
	}
}

func checkBad(t testing.TB, pkg, field, want string, err error) {
	t.Helper()
	if field == "" { // the field Want names
		field = strings.TrimPrefix(want, pkg+": ")
		field = field[:strings.IndexAny(field+" ", " :")]
	}
	if !assert.Error(t, err, "a bad %s is accepted", field) {
		return
	}
	msg := err.Error()
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions, msg)
	if want != "" {
		assert.Equal(t, want, msg)
	}
	prefix := pkg + ": " + field
	assert.True(t, strings.HasPrefix(msg, prefix+" ") || strings.HasPrefix(msg, prefix+":"), "%q does not begin with %q", msg, prefix)
	assert.Equal(t, 1, strings.Count(msg, pkg+": "), "%q says %q more than once", msg, pkg+": ")
}

// secretOptions are defaults with secrets and a rotating BeforeConnect.
func secretOptions(logs *testkit.Buffer) (Options, *Secrets) {
	secrets := NewSecrets()
	o := defaults(logs)
	o.Secrets = secrets
	o.BeforeConnect = func(context.Context) (string, error) { return secrets.Token(), nil }
	return o, secrets
}

// checkShown checks everything r and the log showed, and that the server
// echoed the secrets it got.
func checkShown(t testing.TB, srv Server, r *running, logs *testkit.Buffer, secrets *Secrets) {
	t.Helper()
	var s shown
	r.show(&s)
	s.text("the log", logs.String())
	s.check(t, secrets)
	echoed(t, srv, secrets, "password", "query value", "cookie part", "BeforeConnect credential 1")
}

// secretsRefused: a refusal whose status line, Content-Type and body echo
// the request, attempts on the killed server (a dial error names the
// target), then a refusal for good, which names the first BeforeConnect's
// credential too. Nothing shows a secret.
func secretsRefused(t testing.TB, h Harness) {
	srv := h.Start(t)
	var logs testkit.Buffer
	o, secrets := secretOptions(&logs)
	srv.Refuse(false)
	r := start(t, h, srv, o)
	until(t, r.c, "a refused attempt", func(st health.Status) bool { return st.ConsecutiveFailures >= 1 })
	srv.Kill()
	until(t, r.c, "a refused dial", func(st health.Status) bool { return st.ConsecutiveFailures >= 3 })
	srv.Serve()
	srv.Refuse(true)
	srv.Close() // a connection made in between
	r.waitEnded("after a refusal for good")
	require.ErrorIs(t, r.runErr, supervisor.ErrFailed)
	r.stop()
	checkShown(t, srv, r, &logs, secrets)
}

// secretsClosed: the server ends a connection with a text that echoes the
// request (a close reason); the client reconnects. Nothing shows a secret.
func secretsClosed(t testing.TB, h Harness) {
	srv := h.Start(t)
	var logs testkit.Buffer
	o, secrets := secretOptions(&logs)
	r := start(t, h, srv, o)
	until(t, r.c, "connected", testkit.Connected(1))
	srv.Close()
	until(t, r.c, "connected again", testkit.Connected(2))
	for _, rd := range r.readers {
		rd.waitFor(t, "error for the break", hasError)
	}
	require.NoError(t, r.stop())
	checkShown(t, srv, r, &logs, secrets)
}

// secretsAfterRun: Run's ctx ends while connected; the server answers the
// client's goodbye with a text that echoes the request, which the streams
// may yield after Run returned. Nothing shows a secret.
func secretsAfterRun(t testing.TB, h Harness) {
	srv := h.Start(t)
	var logs testkit.Buffer
	o, secrets := secretOptions(&logs)
	r := start(t, h, srv, o)
	until(t, r.c, "connected", testkit.Connected(1))
	r.reading(t, h)
	require.NoError(t, r.stop())
	checkShown(t, srv, r, &logs, secrets)
}

// secretsCallbacks: the program's own callbacks fail with texts that hold
// its secrets — BeforeConnect naming the credential it set before,
// OnConnect naming the one it set last — as a program's errors do.
// Nothing shows a secret.
func secretsCallbacks(t testing.TB, h Harness) {
	srv := h.Start(t)
	var logs testkit.Buffer
	secrets := NewSecrets()
	o := defaults(&logs)
	o.Secrets = secrets
	// An attempt abandoned at ConnectTimeout leaves its callback running
	// beside the next attempt's: the counts are atomic.
	var calls, subscribed atomic.Int64
	o.BeforeConnect = func(context.Context) (string, error) {
		if calls.Add(1) == 2 {
			return "", fmt.Errorf("token refresh failed: %s was revoked", secrets.Tokens()[0])
		}
		return secrets.Token(), nil
	}
	failures := uint64(2) // the refused first attempt, BeforeConnect's
	if h.has("on-connect") {
		failures++
		o.OnConnect = func(context.Context) error {
			if subscribed.Add(1) == 1 {
				tokens := secrets.Tokens()
				return fmt.Errorf("subscribe: token %s not accepted", tokens[len(tokens)-1])
			}
			return nil
		}
	}
	srv.Refuse(false)
	r := start(t, h, srv, o)
	until(t, r.c, "BeforeConnect's failure", func(st health.Status) bool { return st.ConsecutiveFailures >= 2 })
	srv.Serve()
	until(t, r.c, "connected after the callbacks' failures", testkit.Connected(1))
	require.NoError(t, r.stop())
	var s shown
	r.show(&s)
	s.text("the log", logs.String())
	s.check(t, secrets)
	assert.GreaterOrEqual(t, r.c.Status().Failures, failures, "not every callback failed: this case could not fail")
}

// panicValue is what a case's callback panics with.
type panicValue struct{ where string }

func (p *panicValue) String() string { return "conformance: a panic in " + p.where }

// panicIn: a panic in the program's callback is recovered where it
// happened; the supervisor closes the connection, publishes Failed with
// an error wrapping supervisor.ErrPanicked, closes Done and the health
// channels, and Run panics again on its caller's goroutine with the same
// value. Nothing is left running.
func panicIn(callback string) func(testing.TB, Harness) {
	return func(t testing.TB, h Harness) {
		srv := h.Start(t)
		leftover := goleak.IgnoreCurrent()
		var logs testkit.Buffer
		o := defaults(&logs)
		v := &panicValue{where: callback}
		switch callback {
		case "connect":
			o.BeforeConnect = func(context.Context) (string, error) { panic(v) }
		case "on-connect":
			o.OnConnect = func(context.Context) error { panic(v) }
		case "classify":
			srv.Refuse(false)
			o.Settings.Classify = func(error) error { panic(v) }
		case "logger":
			o.Settings.Logger = loggerPanicking(o.Settings.Logger, "connected", v)
		}
		r := start(t, h, srv, o)
		ch, unsub := r.c.Subscribe()
		defer unsub()
		if !within(r.ended, panicWait) {
			t.Fatalf("Run neither returned nor panicked within %v after a panic in %s", panicWait, callback)
		}
		assert.True(t, r.panic == v, "Run panicked with %v, want the callback's value %v", r.panic, v)
		assert.True(t, within(r.c.Done(), 0), "Done is open")
		err := r.c.Err()
		assert.ErrorIs(t, err, supervisor.ErrPanicked)
		assert.ErrorContains(t, err, v.String(), "the error says what panicked")
		if callback == "connect" {
			assert.ErrorContains(t, err, cmp.Or(h.Hook, "BeforeConnect")+" panicked", "the error names the program's hook, not the Connector's method")
		}
		st := r.c.Status()
		assert.Equal(t, health.Failed, st.State)
		assert.ErrorIs(t, st.Err, supervisor.ErrPanicked)
		assertClosed(t, ch, panicWait)
		r.stopRd()
		for _, rd := range r.readers {
			assert.True(t, within(rd.done, panicWait), "the %s loop did not end", rd.name)
		}
		goleak.VerifyNone(t, leftover)
	}
}

// panicWait bounds what a panic case waits for: the panic ends the
// supervisor at once, and a wedged one would make every wait time out.
const panicWait = 3 * time.Second

// assertClosed checks that the health channel ch is closed within d,
// after at most the final Status.
func assertClosed(t testing.TB, ch <-chan health.Status, d time.Duration) {
	t.Helper()
	if _, closed := drainWithin(ch, d); !closed {
		t.Errorf("the health channel is still open %v after Run ended", d)
	}
}

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

// orderFailed: the health channel closes after the final Status, Failed,
// and Err says why as soon as it has closed, even while a slow Logger
// still writes the "gave up" record; Done closes after Run returned, with
// Err what Run returned.
func orderFailed(t testing.TB, h Harness) {
	srv := h.Start(t)
	var logs testkit.Buffer
	o := defaults(&logs)
	release := make(chan struct{})
	t.Cleanup(func() { closeOnce(release) })
	o.Settings.Logger = loggerBlocking(o.Settings.Logger, release)
	srv.Refuse(true)
	r := start(t, h, srv, o)
	ch, unsub := r.c.Subscribe()
	defer unsub()
	last := drain(t, ch) // ends by itself, as `for st := range ch` does
	errAtClose := r.c.Err()
	closeOnce(release)
	assert.Equal(t, health.Failed, last.State, "the last Status on the channel")
	require.Error(t, errAtClose, "Err is nil right after the health channel closed on Failed")
	assert.ErrorIs(t, errAtClose, supervisor.ErrFailed)
	r.waitEnded("after Failed")
	assert.Equal(t, r.runErr, r.c.Err(), "Err is what Run returned")
	assert.Equal(t, errAtClose, r.c.Err(), "Err did not change")
	late, unsubLate := r.c.Subscribe()
	defer unsubLate()
	st, open := <-late
	assert.True(t, open, "a late subscriber gets the final Status")
	assert.Equal(t, health.Failed, st.State, "a late subscriber gets the final Status")
	_, open = <-late
	assert.False(t, open, "and a closed channel")
}

// orderStopped: after Run's ctx ended, the channel closes after the final
// Status, Stopped; Err is nil and Run returned nil; the streams ended by
// themselves, and one started now ends at once without a yield.
func orderStopped(t testing.TB, h Harness) {
	srv := h.Start(t)
	var logs testkit.Buffer
	r := start(t, h, srv, defaults(&logs))
	until(t, r.c, "connected", testkit.Connected(1))
	ch, unsub := r.c.Subscribe()
	defer unsub()
	r.stopReaders(wait, t.Fatalf)
	r.cancel()
	last := drain(t, ch)
	assert.Equal(t, health.Stopped, last.State, "the last Status on the channel")
	assert.NoError(t, r.c.Err())
	require.NoError(t, r.stop())
	assert.True(t, within(r.c.Done(), 0), "Done is open after Run returned")
	assert.NoError(t, r.c.Err())
	endsAtOnce(t, h, r.c, "Stopped", 0)
}

// permanentRefusal: a refusal for good ends Run (ErrFailed, at the first
// attempt) and every stream, those that ranged before and one that starts
// after; none spins.
func permanentRefusal(t testing.TB, h Harness) {
	srv := h.Start(t)
	var logs testkit.Buffer
	srv.Refuse(true)
	r := startReading(t, h, srv, defaults(&logs), h.Streams)
	r.waitEnded("after a refusal for good")
	require.ErrorIs(t, r.runErr, supervisor.ErrFailed)
	assert.ErrorContains(t, r.runErr, h.Refusal, "Run's error does not say why")
	st := r.c.Status()
	assert.Equal(t, health.Failed, st.State)
	assert.Equal(t, 1, st.ConsecutiveFailures, "given up at the first attempt")
	assert.True(t, backoff.IsPermanent(st.Err), "Status.Err is permanent: %v", st.Err)
	for _, rd := range r.readers {
		if !assert.True(t, within(rd.done, atOnce), "the %s loop did not end within %v after Failed", rd.name, atOnce) {
			continue
		}
		assert.LessOrEqual(t, len(rd.events), 1, "the %s loop yielded %d times", rd.name, len(rd.events))
		assert.False(t, slices.ContainsFunc(rd.events, func(e event) bool { return e.err == nil }), "the %s loop yielded an item", rd.name)
	}
	endsAtOnce(t, h, r.c, "Failed", 1)
}

// atOnce bounds how long a stream may take to end once its client is
// done: it wakes on a channel, never on a timer.
const atOnce = time.Second

// endsAtOnce checks that a loop over each stream, started once c is done,
// ends by itself within atOnce, yielding no item and at most errs errors:
// it never spins.
func endsAtOnce(t testing.TB, h Harness, c Client, state string, errs int) {
	t.Helper()
	for _, s := range h.Streams {
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		began, n := time.Now(), 0
		for _, err := range s.Range(ctx, c) {
			if n++; n > errs {
				break
			}
			assert.Error(t, err, "a %s loop started after %s yielded an item", s.Name, state)
		}
		assert.NoError(t, ctx.Err(), "a %s loop started after %s waited for its ctx", s.Name, state)
		assert.Less(t, time.Since(began), atOnce, "a %s loop started after %s took that long to end", s.Name, state)
		assert.LessOrEqual(t, n, errs, "a %s loop started after %s yielded %d times", s.Name, state, n)
		cancel()
	}
}

// timeoutIn: a callback of the attempt that ignores its ctx does not hold
// the attempt past ConnectTimeout: the attempt is abandoned (Backoff, an
// error that says so), the next one comes, and Run returns when its ctx
// ends, while the callback still blocks.
func timeoutIn(callback string) func(testing.TB, Harness) {
	return func(t testing.TB, h Harness) {
		const connectTimeout = 300 * time.Millisecond
		srv := h.Start(t)
		var logs testkit.Buffer
		o := defaults(&logs)
		o.Settings.ConnectTimeout = connectTimeout
		release := make(chan struct{})
		switch callback {
		case "connect":
			o.BeforeConnect = func(context.Context) (string, error) { <-release; return "late", nil }
		case "on-connect":
			o.OnConnect = func(context.Context) error { <-release; return nil }
		}
		r := start(t, h, srv, o)
		t.Cleanup(func() { closeOnce(release) }) // before start's cleanup: LIFO
		bound := 10 * connectTimeout
		st := testkit.WaitStatus(t, r.c, bound, "the attempt abandoned at ConnectTimeout", func(st health.Status) bool {
			return st.State == health.Backoff && st.Err != nil
		})
		assert.True(t, errors.Is(st.Err, context.DeadlineExceeded) || strings.Contains(st.Err.Error(), "timed out"),
			"the error does not say the attempt timed out: %v", st.Err)
		testkit.WaitStatus(t, r.c, bound, "a second attempt", func(st health.Status) bool { return st.ConsecutiveFailures >= 2 })
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

// noLeak: once Run returned and the streams ended, nothing the client
// started is left running: no goroutine, no connection (the server's
// handler of it would be left) — stopped while connected, and stopped
// after its server was killed.
func noLeak(t testing.TB, h Harness) {
	srv := h.Start(t)
	leftover := goleak.IgnoreCurrent()
	var logs testkit.Buffer
	r := start(t, h, srv, defaults(&logs))
	until(t, r.c, "connected", testkit.Connected(1))
	r.reading(t, h)
	require.NoError(t, r.stop())
	goleak.VerifyNone(t, leftover)
	noneOpen(t, srv)

	r = start(t, h, srv, defaults(&logs))
	until(t, r.c, "connected", testkit.Connected(1))
	srv.Kill()
	until(t, r.c, "a refused attempt after the loss", func(st health.Status) bool { return st.Connects == 1 && st.ConsecutiveFailures >= 1 })
	require.NoError(t, r.stop())
	goleak.VerifyNone(t, leftover)
}

// noneOpen checks that srv, when it is a Counter, holds none of the
// case's connections open, soon: a closed connection's server side ends
// on its own time, and no event says when.
func noneOpen(t testing.TB, srv Server) {
	t.Helper()
	c, ok := srv.(Counter)
	if !ok {
		return
	}
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		n := c.Open()
		if n == 0 {
			return
		}
		select {
		case <-tick.C:
		case <-timeout.C:
			t.Errorf("the server still holds %d connections of the client %v after Run returned", n, wait)
			return
		}
	}
}

// reconnectAfterKill: a killed server is found, its connection's streams
// yield the break once, and when the server is back the client reconnects
// and the streams go on with the new connection.
func reconnectAfterKill(t testing.TB, h Harness) {
	srv := h.Start(t)
	var logs testkit.Buffer
	r := start(t, h, srv, defaults(&logs))
	until(t, r.c, "connected", testkit.Connected(1))
	srv.Kill()
	lost := until(t, r.c, "the loss", func(st health.Status) bool { return st.State != health.Connected && st.Err != nil })
	assert.Equal(t, uint64(1), lost.Connects)
	assert.False(t, lost.LastFailure.IsZero(), "LastFailure is not set")
	until(t, r.c, "a refused attempt, retried", func(st health.Status) bool {
		return st.State == health.Backoff && st.ConsecutiveFailures >= 1 && st.Connects == 1
	})
	srv.Serve()
	until(t, r.c, "connected again", testkit.Connected(2))
	if s, ok := srv.(Sender); ok {
		s.Send()
	}
	for i, rd := range r.readers {
		rd.waitFor(t, "error for the break", hasError)
		if h.Streams[i].Greets || isSender(srv) {
			rd.waitFor(t, "item of the new connection after the break", itemAfterError)
		}
	}
	require.NoError(t, r.stop())
	var lostAt, backAt int
	for i, tr := range r.c.History() {
		if tr.From == health.Connected && tr.Err != nil && lostAt == 0 {
			lostAt = i
		}
		if tr.To == health.Connected && lostAt > 0 {
			backAt = i
		}
	}
	assert.True(t, lostAt > 0 && backAt > lostAt, "History has no loss followed by a connect: %v", r.c.History())
}

func isSender(srv Server) bool {
	_, ok := srv.(Sender)
	return ok
}

// stall: a connection whose server stopped answering, without closing it,
// is found by the adapter's liveness rule within h.Liveness (plus the
// machine's slack) and replaced.
func stall(t testing.TB, h Harness) {
	srv := h.Start(t)
	var logs testkit.Buffer
	r := start(t, h, srv, defaults(&logs))
	until(t, r.c, "connected", testkit.Connected(1))
	stalled := time.Now()
	srv.Stall()
	st := testkit.WaitStatus(t, r.c, h.Liveness+wait, "the stalled connection found", func(st health.Status) bool {
		return st.State != health.Connected
	})
	found := time.Since(stalled)
	t.Logf("found after %v (liveness %v): %v", found.Round(time.Millisecond), h.Liveness, st.Err)
	assert.Less(t, found, h.Liveness+time.Second, "found later than the liveness rule says")
	require.Error(t, st.Err)
	if h.Silent != nil {
		assert.ErrorIs(t, st.Err, h.Silent, "the loss does not say the peer was silent")
	}
	srv.Serve()
	until(t, r.c, "connected again", testkit.Connected(2))
	require.NoError(t, r.stop())
}

// drainer is every adapter's client: Drain and Draining are forwarded.
type drainer interface {
	Drain(ctx context.Context) error
	Draining() bool
}

// drained: Drain with the program's loop ranging returns nil, Run
// returns nil at Stopped, and the loop ends by itself, yielding no error
// (but a Connections body's, which reads the connection that said
// goodbye): a goodbye is no break.
func drained(t testing.TB, h Harness) {
	srv := h.Start(t)
	var logs testkit.Buffer
	r := start(t, h, srv, defaults(&logs))
	until(t, r.c, "connected", testkit.Connected(1))
	d, ok := r.c.(drainer)
	require.True(t, ok, "%T has no Drain", r.c)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	errsBefore := 0
	for _, rd := range r.readers {
		if rd.name != "Connections" {
			errsBefore += len(rd.errs())
		}
	}
	require.NoError(t, d.Drain(ctx))
	assert.True(t, d.Draining())
	r.waitEnded("after Drain returned")
	assert.NoError(t, r.runErr)
	assert.Equal(t, health.Stopped, r.c.Status().State)
	errsAfter := 0
	for _, rd := range r.readers {
		assert.True(t, within(rd.done, wait), "the %s loop did not end after the drain", rd.name)
		if rd.name != "Connections" {
			errsAfter += len(rd.errs())
		}
	}
	assert.Equal(t, errsBefore, errsAfter, "a stream yielded an error for the drain")
}
