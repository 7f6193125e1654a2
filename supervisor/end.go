package supervisor

import (
	"errors"
	"fmt"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
)

// served ends the connection held, which broke for h.reason (or that ctx
// ended): it is no longer live, and closed; h.next is when the next
// attempt is due, or h.fail Run's error.
func (h *hand[C]) served() {
	s := h.s
	if p, ok := h.reason.(*panicError); ok { // Watch panicked, or a late panic woke Run
		panic(p)
	}
	if p := s.late.Load(); p != nil {
		panic(p)
	}
	s.drop(h.held)
	if h.ctx.Err() != nil || s.drainingNow() { // a loss while draining: no new attempt, Run stops
		h.closeHeld()
		return
	}
	h.lost(time.Since(s.status.Since)) // Connected since then
}

// drop makes conn no longer live: Conn stops returning it and Invalidate
// ignores it from now on.
func (s *Supervisor[C]) drop(conn C) {
	var zero C
	s.mu.Lock()
	if s.live == conn {
		s.live, s.cancelWatch, s.ready, s.invalidErr = zero, nil, false, nil
		if s.life != nil {
			s.life.liveUse = 0 // its users release it as a stranger
		}
		select {
		case <-s.invalid: // a reason nobody read: it was about conn
		default:
		}
	}
	s.mu.Unlock()
}

// lost publishes the loss of the connection held and closes it; it gives
// up when the reason is permanent (a server that closed with "policy
// violation", say).
func (h *hand[C]) lost(uptime time.Duration) {
	s := h.s
	cause := h.classify(h.reason)
	if errors.Is(cause, ErrReplaced) && !backoff.IsPermanent(cause) {
		h.replaced(s.safe(cause), uptime)
		return
	}
	reason := s.safe(fmt.Errorf("connection lost: %w", cause))
	if backoff.IsPermanent(reason) {
		h.closeHeld()
		h.giveUp(s.errorf("%w: %w", ErrFailed, reason), &transition{state: health.Failed, err: reason, lost: true})
		return
	}
	now := time.Now()
	e, d := s.policy.Lost(int(s.endpoint), uptime, reason, now)
	s.endpoint = int32(e)
	h.next = now.Add(d.Wait)
	s.rest(now.Add(d.Rest))
	s.set(&transition{at: now, state: health.Backoff, err: reason, next: h.next, lost: true, delay: &d})
	h.log(evLost, &d, uptime) // before Close, which may wait for a close handshake
	h.closeHeld()
}

// replaced publishes Connecting for a connection replaced, not lost, and
// closes it; the attempt follows at once, on the same endpoint.
func (h *hand[C]) replaced(reason error, uptime time.Duration) {
	h.reason = reason // the record's err: Status.Err keeps the last error
	h.s.set(&transition{state: health.Connecting, err: reason, replaced: true})
	h.log(evReplaced, nil, uptime)
	h.closeHeld()
}

// giveUp publishes t (state Failed) with Run's error err, redacted, which
// Err reads from before t is published.
func (h *hand[C]) giveUp(err error, t *transition) {
	s := h.s
	h.fail = s.safe(err)
	s.mu.Lock()
	s.failErr = h.fail
	s.mu.Unlock()
	s.set(t)
	h.log(evGaveUp, nil, 0)
}

// stop publishes Stopped; Run returns nil.
func (h *hand[C]) stop() {
	h.s.set(&transition{state: health.Stopped})
	h.log(evStopped, nil, 0)
}
