package redialtest

import (
	"testing"
	"time"

	"github.com/redial-go/redial/health"
)

// noLeak: once Run returned and the streams ended, nothing the client
// started is left running: no goroutine, no connection (the Proxy's, and
// a Counter's sessions) — stopped while connected, and stopped while its
// server was down.
func noLeak(e *env) {
	t, h := e.t, e.h
	before := goroutines()
	r := e.start(e.defaults())
	until(t, r.c, "connected", connected(1))
	r.reading(t, h)
	// A dial completes in the kernel's backlog before the Proxy accepts:
	// a connection it has not accepted yet cannot be seen left open.
	waitFor(t, "the Proxy's accept", func() bool { return e.p.Accepted() >= 1 })
	mustNot(t, r.stop(), "Run")
	// Connections first: the goroutine check makes garbage, and the
	// collector closes a lost socket (a finalizer), hiding the leak.
	noneOpen(t, "the Proxy", e.p.Open)
	if c, ok := e.srv.(Counter); ok {
		noneOpen(t, "the server", c.Open)
	}
	noneLeaked(t, before)

	r = e.start(e.defaults())
	until(t, r.c, "connected", connected(1))
	e.kill()
	until(t, r.c, "a refused attempt after the loss", func(st health.Status) bool { return st.Connects == 1 && st.ConsecutiveFailures >= 1 })
	mustNot(t, r.stop(), "Run")
	noneLeaked(t, before)
}

// waitFor polls ok until it holds, failing t after wait.
func waitFor(t testing.TB, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v", what, wait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// noneOpen checks that open() reaches 0 soon: a closed connection's far
// side ends on its own time, and no event says when.
func noneOpen(t testing.TB, who string, open func() int) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		n := open()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s still holds %d connections of the client %v after Run returned", who, n, wait)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
