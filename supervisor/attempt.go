package supervisor

import (
	"context"
	"errors"
	"fmt"

	"github.com/redial-go/redial/internal/redact"
)

// errNeither is Connect's error when it returned neither a connection nor
// an error.
var errNeither = errors.New("connector returned neither a connection nor an error")

// hand is one attempt's goroutine: it makes the attempt's calls of the
// Connector — Connect (or ConnectTo), OnConnect, and Close when the
// attempt failed — one at a time, each when Run's goroutine asks for it
// and waits.
//
// A real dial is deep (DNS, TLS, an HTTP handshake) and grows the stack
// of the goroutine it runs on. Go never shrinks a parked goroutine's stack
// back to the smallest size, so on Run's goroutine that growth would stay
// for the whole life of the connection; on the hand's it is freed when the
// attempt ends. The hand touches no lifecycle state (Status, the policy,
// the live connection, the history): Run's goroutine owns it and changes
// it between calls, so there is still one owner, and the Connector is
// still called one method at a time. What the hand returns is ready for
// Run's goroutine to publish: classified, wrapped and redacted (so that
// publishing it does not run the redactor there either).
type hand[C comparable] struct {
	s        *Supervisor[C]
	ctx      context.Context // Run's
	ops      chan op         // Run sends an op; the hand answers 0 when it is done
	actx     context.Context // the attempt's: ctx with ConnectTimeout
	cancel   context.CancelFunc
	conn     C
	err      error // the last op's error, ready to publish
	timedOut bool  // ConnectTimeout ended the attempt
}

// op is a call Run's goroutine asks the hand to make.
type op uint8

const (
	opConnect   op = iota + 1 // the attempt's context, then Connect; Close if it failed with a connection
	opOnConnect               // OnConnect with the connection
	opFailed                  // Close the connection of a failed OnConnect; err wrapped as its error
)

// newHand starts the hand of one attempt. Run's goroutine calls it from
// its shallowest frame: the allocations are the only ones of the attempt
// made on that goroutine.
func (s *Supervisor[C]) newHand(ctx context.Context) *hand[C] {
	h := &hand[C]{s: s, ctx: ctx, ops: make(chan op)}
	go h.serve()
	return h
}

// serve makes each call asked for until the attempt is over.
func (h *hand[C]) serve() {
	for o := range h.ops {
		h.do(o)
		h.ops <- 0
	}
}

// call asks the hand to make o and waits until it is done.
func (h *hand[C]) call(o op) {
	h.ops <- o
	<-h.ops
}

// done ends the hand's goroutine; it makes no call after this.
func (h *hand[C]) done() { close(h.ops) }

func (h *hand[C]) do(o op) {
	var zero C
	s := h.s
	switch o {
	case opConnect:
		h.actx, h.cancel = context.WithTimeout(h.ctx, s.opts.ConnectTimeout)
		conn, err := s.connect(h.actx)
		if err == nil && conn == zero {
			err = errNeither
		}
		if err != nil {
			if conn != zero {
				s.close(conn)
			}
			h.end()
			h.err = s.attemptError("connect", h.timedOut, err)
			return
		}
		h.conn = conn
		if s.onConnect == nil {
			h.end()
		}
	case opOnConnect:
		h.err = s.onConnect(h.actx, h.conn)
		h.end()
	case opFailed:
		s.close(h.conn)
		h.err = s.attemptError("on connect", h.timedOut, h.err)
	}
}

// end ends the attempt's context, noting whether its timeout did.
func (h *hand[C]) end() {
	h.timedOut = errors.Is(context.Cause(h.actx), context.DeadlineExceeded)
	h.cancel()
}

// attemptError classifies err and says which step failed, and whether it
// was the attempt's timeout; the result is redacted, as Status shows it.
func (s *Supervisor[C]) attemptError(step string, timedOut bool, err error) error {
	err = s.classify(err)
	if timedOut {
		return redact.Error(fmt.Errorf("%s: timed out after %v: %w", step, s.opts.ConnectTimeout, err))
	}
	return redact.Error(fmt.Errorf("%s: %w", step, err))
}
