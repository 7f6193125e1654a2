package supervisor

import (
	"context"
	"fmt"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
)

// errAbandoned is the error of an attempt whose call was abandoned.
var errAbandoned = fmt.Errorf("abandoned, still running: %w", context.DeadlineExceeded)

// attempt makes one attempt within ConnectTimeout, Connect then OnConnect,
// and publishes how it went: h.conn is the new connection, Connected and
// live (Invalidate can match it); or h.next is when the next attempt is
// due; or h.fail is Run's error when the supervisor gives up. After ctx
// ended, none.
func (h *hand[C]) attempt() {
	s := h.s
	replaced := s.status.State == health.Connecting // a replacement published it
	s.failingBack(replaced)
	if !replaced && !h.switching {
		s.set(&transition{state: health.Connecting})
		h.log(evConnecting, nil, 0)
	}
	s.drainRetry()
	timeout := s.opts.connectTimeout
	h.actx, h.cancel = context.WithTimeout(h.ctx, timeout)
	h.limit = time.AfterFunc(timeout+grace, h.expire)
	h.unlimit = context.AfterFunc(h.ctx, func() {
		h.limitMu.Lock()
		if h.limit != nil {
			h.limit.Reset(grace)
		}
		h.limitMu.Unlock()
	})
	h.connectAndSubscribe()
	h.settle()
}

// settle ends the attempt's limit and publishes how it went.
func (h *hand[C]) settle() {
	var zero C
	s := h.s
	h.unlimit()
	h.limitMu.Lock()
	h.limit.Stop()
	h.limit = nil
	h.limitMu.Unlock()
	h.cancel()
	switch {
	case h.ctx.Err() != nil:
		if h.held != zero {
			s.drop(h.held)
			h.closeHeld()
		}
		if h.switching { // the old one stays, for Run to close
			h.conn, h.old = h.old, zero
		}
	case h.err != nil && h.switching:
		h.switchFailed()
	case h.err != nil:
		h.attemptFailed()
	case h.switching:
		h.switched()
	default:
		h.connected()
	}
}

// connectAndSubscribe makes the attempt's calls, Connect then OnConnect.
// Connect's connection is held, and live while OnConnect runs; h.err is
// set when the attempt failed, and then no connection is held.
func (h *hand[C]) connectAndSubscribe() {
	var zero C
	s := h.s
	h.at = int(s.endpoint) // read here: an abandoned call runs on when the hand moved on
	conn, err := h.bounded(s.eps.call(), zero)
	if err == nil && conn == zero {
		err = errNeither
	}
	if err != nil {
		if conn != zero {
			h.close(conn)
		}
		h.err = h.attemptError("connect", err)
		return
	}
	h.held = conn
	if !h.switching { // a replacement is made live once OnConnect returned (switched)
		s.mu.Lock()
		select {
		case <-s.invalid: // a late panic's wake-up (see latePanic), checked below
		default:
		}
		s.live = h.held
		s.mu.Unlock()
	}
	if p := s.late.Load(); p != nil {
		panic(p)
	}
	if s.onConnect == nil {
		return
	}
	if _, err = h.bounded("OnConnect", conn); err == nil && !h.switching {
		s.mu.Lock()
		err = s.invalidErr
		s.mu.Unlock()
	}
	if err != nil {
		s.drop(h.held)
		h.closeHeld()
		h.err = h.attemptError("on connect", err)
	}
}

// grace is how long after its ctx ended a call of the attempt is
// abandoned.
const grace = 100 * time.Millisecond

// States of the attempt's calls (hand.state).
const (
	between   int32 = iota // no call under way
	calling                // a call is under way
	expired                // the limit fired between calls
	abandoned              // the limit fired during a call
)

// errGone unwinds a hand whose call was abandoned: the burst went on on
// the limit's goroutine (expire).
var errGone = &panicError{msg: "abandoned"}

// bounded makes the attempt's call in (with conn, for OnConnect). When the
// limit fires first, expire goes on with the burst on its goroutine, and
// this one, once the call returns, closes its late connection, hands a
// panic to Run and unwinds.
func (h *hand[C]) bounded(in string, conn C) (C, error) {
	h.in = in
	if !h.state.CompareAndSwap(between, calling) {
		return conn, context.DeadlineExceeded // the limit fired already
	}
	conn, p, err := h.callout(in, conn)
	if h.state.CompareAndSwap(calling, between) {
		h.in = ""
		if p != nil {
			panic(p)
		}
		return conn, err
	}
	var zero C
	if conn != zero {
		if _, q, _ := h.callout("Close", conn); p == nil {
			p = q
		}
	}
	if p != nil {
		h.s.latePanic(p)
	}
	panic(errGone)
}

// callout makes the call in, recovering a panic; it touches no field of h
// but those the attempt set before its calls.
func (h *hand[C]) callout(in string, conn C) (_ C, p *panicError, err error) {
	defer func() {
		if v := recover(); v != nil {
			p = h.s.panicError(in, v)
		}
	}()
	s := h.s
	switch in {
	case "Connect", "ConnectTo":
		conn, err = s.eps.connect(h.actx, s.connector, h.at)
	case "OnConnect":
		err = s.onConnect(h.actx, conn)
	case "Close": // an abandoned call's connection
		if err := s.connector.Close(conn); err != nil {
			s.logCloseError(err)
		}
	}
	return conn, nil, err
}

// expire runs on the limit's goroutine when it fires: a call under way is
// abandoned, and the burst goes on here.
func (h *hand[C]) expire() {
	if h.state.CompareAndSwap(calling, abandoned) {
		h.finish(h.safely(opAbandoned))
		return
	}
	h.state.CompareAndSwap(between, expired)
}

// abandoned goes on with an attempt whose call was abandoned; OnConnect's
// connection, no longer live, is closed when the call returns.
func (h *hand[C]) abandoned() {
	var zero C
	if h.held != zero {
		h.s.drop(h.held)
		h.held = zero
		h.err = h.attemptError("on connect", errAbandoned)
	} else {
		h.err = h.attemptError("connect", errAbandoned)
	}
	h.settle()
}

// attemptFailed publishes the failed attempt and when the next one is
// due, or gives up when its error is permanent or MaxAttempts is reached.
func (h *hand[C]) attemptFailed() {
	s, err := h.s, h.err
	s.failures++
	failed := transition{state: health.Failed, err: err, failed: true}
	switch {
	case backoff.IsPermanent(err):
		h.giveUp(s.errorf("%w: %w", ErrFailed, err), &failed)
		return
	case s.opts.maxAttempts > 0 && int(s.failures) >= s.opts.maxAttempts:
		h.giveUp(s.errorf("%w after %d attempts: %w", ErrFailed, s.failures, err), &failed)
		return
	}
	now := time.Now()
	at := int(s.endpoint)
	e, d := s.policy.Failed(at, err, now)
	s.noteEndpoints(now)
	s.endpoint = int32(e)
	h.next = now.Add(d.Wait)
	s.rest(now.Add(d.Rest))
	s.set(&transition{at: now, state: health.Backoff, err: err, next: h.next, failed: true, delay: &d})
	h.log(evAttemptFailed, &d, 0)
	if d.Ejected > 0 {
		h.logEndpoint(at, d.Ejected, now)
	}
}

// connected publishes the new connection and hands it to Run.
func (h *hand[C]) connected() {
	var zero C
	s := h.s
	s.failures = 0
	recovered := s.policy.Connected(int(s.endpoint))
	now := s.aging()
	s.noteEndpoints(now)
	s.set(&transition{at: now, state: health.Connected, connect: true})
	s.armFailBack(h.held, now) // once ready: its timer checks that
	h.log(evConnected, nil, 0)
	if recovered {
		h.logEndpoint(int(s.endpoint), 0, now)
	}
	h.conn, h.held = h.held, zero
}
