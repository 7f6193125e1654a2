package redialtest

import (
	"context"

	"github.com/redial-go/redial/health"
)

// drainer is a Client that drains (supervisor.Supervisor and every
// adapter): the drain case runs on one, and skips on another.
type drainer interface {
	Drain(ctx context.Context) error
	Draining() bool
}

// drained: Drain with the program's loops ranging returns nil, Run
// returns nil at Stopped, and every loop ends by itself without an error
// (but a Connections body's, which reads the connection that said
// goodbye): a goodbye is no break.
func drained(e *env) {
	t := e.t
	r := e.start(e.defaults())
	until(t, r.c, "connected", connected(1))
	d, ok := r.c.(drainer)
	if !ok {
		t.Skipf("%T has no Drain", r.c)
	}
	streamErrs := func() (n int) {
		for _, rd := range r.readers {
			if rd.name != "Connections" {
				n += len(rd.errs())
			}
		}
		return n
	}
	before := streamErrs()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	mustNot(t, d.Drain(ctx), "Drain")
	if !d.Draining() {
		t.Errorf("Draining() is false after Drain returned")
	}
	r.waitEnded("after Drain returned")
	mustNot(t, r.runErr, "Run")
	if st := r.c.Status(); st.State != health.Stopped {
		t.Errorf("the Status after Drain is %v, want Stopped", st.State)
	}
	for _, rd := range r.readers {
		if !within(rd.done, wait) {
			t.Errorf("the %s loop did not end after the drain", rd.name)
		}
	}
	if after := streamErrs(); after != before {
		t.Errorf("a stream yielded %d error(s) for the drain", after-before)
	}
}
