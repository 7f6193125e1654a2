package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redial-go/redial/internal/policy"
)

// errNeither is Connect's error when it returned neither a connection nor
// an error.
var errNeither = errors.New("connector returned neither a connection nor an error")

// hand is a short-lived goroutine that makes one burst of the lifecycle's
// work (an attempt, the end of a connection, the stop) while Run's only
// waits, owning the lifecycle state meanwhile. Every callback but Watch
// runs on a hand, so a parked Run keeps the smallest stack
// (stack_test.go). A panic is recovered here and ends the supervisor.
type hand[C comparable] struct {
	s      *Supervisor[C]
	ctx    context.Context // Run's
	done   chan struct{}   // closed when the burst is over
	held   C               // the connection the supervisor holds and has not closed
	reason error           // why the connection broke (opServed)
	// The burst's results.
	conn     C           // the new connection, Connected (opAttempt)
	next     time.Time   // when the next attempt is due
	fail     error       // Run's error when the supervisor gave up
	panicked *panicError // a callback panicked: Run panics again
	// The attempt's.
	actx    context.Context // ctx with ConnectTimeout
	cancel  context.CancelFunc
	limit   *time.Timer  // fires at ConnectTimeout and a grace, or a grace after ctx ended: expire
	limitMu sync.Mutex   // limit is moved by a ctx watch, stopped and cleared by settle
	unlimit func() bool  // stops the ctx watch
	state   atomic.Int32 // of its calls: between, calling, expired or abandoned
	err     error        // its error, ready to publish
	in      string       // the callback under way, for a panic's text
	at      int          // its endpoint
	// A replacement's (opSwitch).
	old       C    // the connection replaced, live meanwhile
	switching bool // the attempt dials a replacement
}

// op is a burst, or a step of one that may panic.
type op uint8

const (
	opAttempt op = iota + 1
	opServed
	opStop
	opCrash     // the late panic in reason (see latePanic)
	opCloseHeld // Close held
	opGaveUp    // the gave-up record
	opAbandoned // the rest of an attempt whose call was abandoned
	opSwitch    // a replacement, make-before-break
)

// inLogger names the Logger's handler as a panic's callee.
const inLogger = "the Logger's handler"

func (h *hand[C]) run(o op) {
	if p := h.safely(o); p != errGone {
		h.finish(p)
	}
}

// finish ends the burst, crashing on a panic p (or on one of a call
// abandoned earlier), and hands the results to Run.
func (h *hand[C]) finish(p *panicError) {
	if p == nil {
		p = h.s.late.Load()
	}
	if p != nil {
		h.crash(p)
	}
	close(h.done)
}

// safely makes o, recovering a panic.
func (h *hand[C]) safely(o op) (p *panicError) {
	defer func() {
		if v := recover(); v != nil {
			if pe, ok := v.(*panicError); ok { // recovered already, elsewhere
				p = pe
			} else {
				p = h.s.panicError(h.in, v)
			}
		}
	}()
	switch o {
	case opAttempt:
		h.attempt()
	case opServed:
		h.served()
	case opStop:
		h.stop()
	case opCrash:
		panic(h.reason)
	case opCloseHeld:
		h.closeHeld()
	case opGaveUp:
		h.log(evGaveUp, nil, 0)
	case opAbandoned:
		h.abandoned()
	case opSwitch:
		h.switchOver()
	}
	return nil
}

// closeHeld closes the connection the supervisor holds, once.
func (h *hand[C]) closeHeld() {
	var zero C
	c := h.held
	h.held = zero
	h.close(c)
}

func (h *hand[C]) close(conn C) {
	h.in = "Close"
	err := h.s.connector.Close(conn)
	h.in = ""
	if err != nil {
		h.in = inLogger
		h.s.logCloseError(err)
		h.in = ""
	}
}

func (h *hand[C]) classify(err error) error {
	h.in = "Classify"
	err = h.s.classify(err)
	h.in = ""
	return err
}

func (s *Supervisor[C]) classify(err error) error {
	if s.opts.classify == nil || err == nil {
		return err
	}
	if c := s.opts.classify(err); c != nil {
		return c
	}
	return err
}

// log writes the record for ev when a Logger is set.
func (h *hand[C]) log(ev event, d *policy.Delay, uptime time.Duration) {
	s := h.s
	if s.logs == nil {
		return
	}
	s.logs.note(ev, time.Now())
	h.in = inLogger
	s.writeLog(ev, d, uptime, h.reason)
	h.in = ""
	if ev == evConnected {
		s.logs.memory = memory{} // logger stays: an abandoned call's Close reads it
	}
}

// logEndpoint writes the record of endpoint i's ejection for ejected, or,
// for 0, of its return to health, when a Logger is set.
//
//go:noinline
func (h *hand[C]) logEndpoint(i int, ejected time.Duration, now time.Time) {
	if h.s.logs == nil {
		return
	}
	h.in = inLogger
	h.s.writeEndpointLog(i, ejected, now)
	h.in = ""
}

// attemptError classifies err and says which step failed, and whether it
// was the attempt's timeout; the result is redacted, as Status shows it.
func (h *hand[C]) attemptError(step string, err error) error {
	// The limit, not Run's ctx, abandons a call only past the deadline,
	// whether or not the context's own timer has fired yet.
	timedOut := errors.Is(context.Cause(h.actx), context.DeadlineExceeded) || err == errAbandoned && h.ctx.Err() == nil
	err = h.classify(err)
	if timedOut {
		return h.s.safe(fmt.Errorf("%s: timed out after %v: %w", step, h.s.opts.connectTimeout, err))
	}
	return h.s.safe(fmt.Errorf("%s: %w", step, err))
}
