package supervisor

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/callback"
)

// panicError is a callback's panic, recovered where it happened: it wraps
// ErrPanicked, and its text says which callback, the value and the stack,
// redacted. Run panics again with value.
type panicError struct {
	value  any
	callee string
	msg    string
}

func (s *Supervisor[C]) panicError(callee string, v any) *panicError {
	if p, ok := v.(*callback.Panic); ok { // the program's callback inside a Connector's
		callee, v = p.In, p.Value
	}
	if callee == "" {
		callee = "the supervisor"
	}
	return &panicError{value: v, callee: callee, msg: s.text(fmt.Sprintf("%s panicked: %v\n\n%s", callee, v, debug.Stack()))}
}

func (e *panicError) Error() string { return e.msg }
func (e *panicError) Unwrap() error { return ErrPanicked }

// crash, on the hand, ends the supervisor after a callback panicked with
// p: the connection held is closed, the supervisor is Failed with p, and
// Run panics again with p's value. A final Status already published stays
// final; a second panic is the first one's consequence.
func (h *hand[C]) crash(p *panicError) {
	var zero C
	s := h.s
	if h.held != zero {
		s.drop(h.held)
		h.safely(opCloseHeld)
	}
	if h.old != zero { // a replacement's: live until now
		h.held, h.old = h.old, zero
		s.drop(h.held)
		h.safely(opCloseHeld)
	}
	if st := s.status.State; st != health.Stopped && st != health.Failed {
		h.fail = s.errorf("%w: %w", ErrFailed, p)
		s.mu.Lock()
		s.failErr = h.fail
		s.mu.Unlock()
		s.set(&transition{state: health.Failed, err: p})
		if p.callee != inLogger {
			h.safely(opGaveUp)
		}
	}
	h.panicked = p
}

// latePanic hands Run the panic of a call it abandoned, waking it as
// Invalidate does. After the final Status it is raised again on a
// goroutine of its own, which crashes the program.
func (s *Supervisor[C]) latePanic(p *panicError) {
	var zero C
	var cancel context.CancelCauseFunc
	s.mu.Lock()
	if s.over {
		s.mu.Unlock()
		go func() { panic(p.value) }()
		return
	}
	s.late.CompareAndSwap(nil, p)
	switch {
	case s.live != zero && s.invalidErr == nil:
		s.invalidErr = p
		s.invalid <- p // cannot block, as in Invalidate
		cancel = s.cancelWatch
	case s.live == zero:
		select { // wakes a Backoff wait; drained before a connection is live
		case s.invalid <- p:
		default:
		}
	}
	s.mu.Unlock()
	if cancel != nil {
		cancel(&InvalidatedError{p})
	}
}
