package redialtest

import (
	"errors"
	"time"

	"github.com/redial-go/redial/health"
)

// reconnectAfterKill: a killed server is found, its connection's streams
// yield the break once, and when the server is back the client reconnects
// and the streams go on with the new connection.
func reconnectAfterKill(e *env) {
	t, h := e.t, e.h
	r := e.start(e.defaults())
	until(t, r.c, "connected", connected(1))
	r.reading(t, h)
	e.kill()
	lost := until(t, r.c, "the loss", func(st health.Status) bool { return st.State != health.Connected && st.Err != nil })
	if lost.Connects != 1 || lost.LastFailure.IsZero() {
		t.Errorf("at the loss: %d connects (want 1), LastFailure %v (want it set)", lost.Connects, lost.LastFailure)
	}
	until(t, r.c, "a refused attempt, retried", func(st health.Status) bool {
		return st.State == health.Backoff && st.ConsecutiveFailures >= 1 && st.Connects == 1
	})
	e.serve()
	until(t, r.c, "connected again", connected(2))
	s, sends := e.srv.(Sender)
	if sends {
		s.Send()
	}
	for i, rd := range r.readers {
		rd.waitFor(t, "error for the break", hasError)
		if h.Streams[i].Greets || sends {
			rd.waitFor(t, "item of the new connection after the break", itemAfterError)
		}
	}
	mustNot(t, r.stop(), "Run")
	var lostAt, backAt int
	for i, tr := range r.c.History() {
		if tr.From == health.Connected && tr.Err != nil && lostAt == 0 {
			lostAt = i
		}
		if tr.To == health.Connected && lostAt > 0 {
			backAt = i
		}
	}
	if lostAt == 0 || backAt <= lostAt {
		t.Errorf("History has no loss followed by a connect: %v", r.c.History())
	}
}

// refusalRetried: a server that refuses every connection is retried, Run
// going on, and connected to once it accepts again.
func refusalRetried(e *env) {
	t := e.t
	e.p.Refuse()
	r := e.start(e.defaults())
	st := until(t, r.c, "two refused attempts", func(st health.Status) bool { return st.ConsecutiveFailures >= 2 })
	if st.Connects != 0 || st.Err == nil {
		t.Errorf("after two refusals: %d connects (want 0), err %v (want the refusal)", st.Connects, st.Err)
	}
	if within(r.ended, 0) {
		t.Fatalf("Run returned on a refusal: %v", r.runErr)
	}
	e.serve()
	until(t, r.c, "connected once the server accepts", connected(1))
	mustNot(t, r.stop(), "Run")
}

// stall: a connection whose server stopped answering, without closing it,
// is found within h.Liveness (plus the machine's slack) and replaced.
func stall(e *env) {
	t, h := e.t, e.h
	r := e.start(e.defaults())
	until(t, r.c, "connected", connected(1))
	r.reading(t, h)
	stalled := time.Now()
	e.p.Stall()
	st := waitStatus(t, r.c, h.Liveness+wait, "the stalled connection found", func(st health.Status) bool {
		return st.State != health.Connected
	})
	found := time.Since(stalled)
	t.Logf("found after %v (liveness %v): %v", found.Round(time.Millisecond), h.Liveness, st.Err)
	// A second of slack: the machine may be loaded (two cores, -race).
	if found >= h.Liveness+time.Second {
		t.Errorf("found after %v, later than Liveness %v says", found, h.Liveness)
	}
	if st.Err == nil {
		t.Fatalf("the loss has no error")
	}
	if h.Silent != nil && !errors.Is(st.Err, h.Silent) {
		t.Errorf("the loss does not wrap %v (the peer was silent): %v", h.Silent, st.Err)
	}
	e.serve()
	until(t, r.c, "connected again", connected(2))
	mustNot(t, r.stop(), "Run")
}

// blackhole: a server that accepts connections and answers nothing never
// holds the client: each attempt ends (at ConnectTimeout, or by liveness
// once it counts as connected) and another comes; once the server
// answers again the client connects.
func blackhole(e *env) {
	const connectTimeout = time.Second
	t, h := e.t, e.h
	o := e.defaults()
	o.Settings.ConnectTimeout = connectTimeout
	e.p.Blackhole()
	r := e.start(o)
	// Two attempts: each ends at the longer of the two bounds, and the
	// machine may be loaded.
	bound := 2*(connectTimeout+h.Liveness) + wait
	deadline := time.Now().Add(bound)
	for e.p.Accepted() < 2 {
		if time.Now().After(deadline) {
			st := r.c.Status()
			t.Fatalf("%d attempts within %v against a blackhole; status %v, err %v", e.p.Accepted(), bound, st.State, st.Err)
		}
		time.Sleep(10 * time.Millisecond) // no event says when an attempt is abandoned
	}
	e.p.Kill() // the blackholed connections: Heal would relay them late
	e.serve()
	until(t, r.c, "connected once the server answers", func(st health.Status) bool { return st.State == health.Connected })
	mustNot(t, r.stop(), "Run")
}
