package backoff

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redial-go/redial/internal/opterr"
)

// Defaults of a BreakerConfig.
const (
	DefaultFailures = 5
	DefaultCooldown = 30 * time.Second
)

// ErrOpen is wrapped by the error a Breaker's Allow returns when it lets no
// call through, and so by Retry's error when its Breaker ended it.
var ErrOpen = errors.New("circuit breaker open")

// BreakerState is where a Breaker stands: Closed, Open or HalfOpen. It is
// a plain value, safe to copy and compare.
type BreakerState int32

const (
	// Closed lets every call through and counts consecutive failures.
	Closed BreakerState = iota
	// Open refuses every call until its Cooldown has passed.
	Open
	// HalfOpen lets one probe through; its result closes or re-opens the
	// breaker.
	HalfOpen
)

// String returns the state's lower-case name: "closed", "open", "half-open".
func (s BreakerState) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	}
	return fmt.Sprintf("BreakerState(%d)", int32(s))
}

// BreakerConfig describes a Breaker. Its zero value is the default: open
// after 5 consecutive failures, half-open 30 seconds later. It is a plain
// value: NewBreaker copies it, and a Breaker never changes it.
type BreakerConfig struct {
	Failures int           // consecutive failures that open it; 0 means 5
	Cooldown time.Duration // open -> half-open after this; 0 means 30s; at most 24h
}

// Breaker is a circuit breaker: after Failures consecutive failures it
// opens and refuses every call for Cooldown; then, half-open, Allow lets
// one probe through, whose success closes it and whose failure opens it
// again. A probe never recorded frees its place after a Cooldown.
//
// Record counts nil as a success and any other error as a failure, but a
// Permanent error or one wrapping context.Canceled (the server answered,
// or the caller gave up): that is neither, and frees a half-open probe's
// place. A result recorded while open is ignored.
//
// A Breaker is safe for concurrent use; share one among all the callers of
// a server. Allow and Record allocate nothing while it is closed.
type Breaker struct {
	state    atomic.Int32 // a BreakerState, written under mu, read alone by the closed fast paths
	failures atomic.Int64 // consecutive failures while closed, written under mu

	limit    int64
	cooldown time.Duration

	mu      sync.Mutex
	until   time.Time // Open: when it turns half-open; HalfOpen with a probe out: when its place frees
	probing bool      // HalfOpen: a probe is out
}

// NewBreaker returns a closed Breaker for c. Zero fields take their
// defaults: Failures 5, Cooldown 30 seconds. A negative field, or a
// Cooldown above 24h, is an error that names it and wraps
// ErrInvalidOptions.
func NewBreaker(c BreakerConfig) (*Breaker, error) {
	if c.Failures < 0 {
		return nil, invalid("Failures", c.Failures, "negative")
	}
	if err := opterr.Duration("backoff", "Cooldown", c.Cooldown); err != nil {
		return nil, err
	}
	if c.Failures == 0 {
		c.Failures = DefaultFailures
	}
	if c.Cooldown == 0 {
		c.Cooldown = DefaultCooldown
	}
	return &Breaker{limit: int64(c.Failures), cooldown: c.Cooldown}, nil
}

// Allow reports whether a call may go ahead: nil, or an error wrapping
// ErrOpen whose RetryAfterHint is the time left until Allow could let a
// call through (the rest of the Cooldown, or of a half-open probe's place).
// A nil from a half-open breaker makes the caller its probe: call Record
// with the result.
func (b *Breaker) Allow() error {
	if BreakerState(b.state.Load()) == Closed {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s, now := b.advance()
	switch s {
	case Closed:
		return nil
	case HalfOpen:
		if b.probing && now.Before(b.until) {
			return &openError{left: b.until.Sub(now), probing: true}
		}
		b.probing = true
		b.until = now.Add(b.cooldown)
		return nil
	}
	return &openError{left: b.until.Sub(now)}
}

// Record reports the result of a call that Allow let through: nil closes a
// half-open breaker, and a failure counts towards opening a closed one or
// re-opens a half-open one (see Breaker for what counts).
func (b *Breaker) Record(err error) {
	switch {
	case err == nil:
		b.success()
	case IsPermanent(err) || errors.Is(err, context.Canceled):
		b.release()
	default:
		b.failure()
	}
}

// State returns where the breaker stands now: an open breaker whose
// Cooldown has passed is HalfOpen.
func (b *Breaker) State() BreakerState {
	if s := BreakerState(b.state.Load()); s == Closed {
		return s
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s, _ := b.advance()
	return s
}

// refusal returns the error Allow would return now, without taking a
// half-open breaker's probe place: Retry ends at once on it rather than
// waiting for a retry the breaker would refuse.
func (b *Breaker) refusal() error {
	if BreakerState(b.state.Load()) == Closed {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch s, now := b.advance(); s {
	case Open:
		return &openError{left: b.until.Sub(now)}
	case HalfOpen:
		if b.probing && now.Before(b.until) {
			return &openError{left: b.until.Sub(now), probing: true}
		}
	}
	return nil
}

func (b *Breaker) success() {
	if BreakerState(b.state.Load()) == Closed && b.failures.Load() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch s, _ := b.advance(); s {
	case Closed:
		b.failures.Store(0)
	case HalfOpen:
		b.probing = false
		b.failures.Store(0)
		b.state.Store(int32(Closed))
	}
}

func (b *Breaker) failure() {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch s, now := b.advance(); s {
	case Closed:
		n := b.failures.Load() + 1
		if n < b.limit {
			b.failures.Store(n)
			return
		}
		b.open(time.Now())
	case HalfOpen:
		b.open(now)
	}
}

// release frees a half-open breaker's probe place without deciding.
func (b *Breaker) release() {
	if BreakerState(b.state.Load()) == Closed {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, _ := b.advance(); s == HalfOpen {
		b.probing = false
	}
}

// open opens the breaker for a Cooldown from now. b.mu is held.
func (b *Breaker) open(now time.Time) {
	b.failures.Store(0)
	b.probing = false
	b.until = now.Add(b.cooldown)
	b.state.Store(int32(Open))
}

// advance turns an open breaker whose Cooldown has passed half-open, and
// returns the state and, unless it is Closed (no clock read), the time it
// read. b.mu is held.
func (b *Breaker) advance() (BreakerState, time.Time) {
	s := BreakerState(b.state.Load())
	if s == Closed {
		return s, time.Time{}
	}
	now := time.Now()
	if s == Open && !now.Before(b.until) {
		s = HalfOpen
		b.probing = false
		b.state.Store(int32(s))
	}
	return s, now
}

// openError is Allow's refusal: it wraps ErrOpen and carries the time left
// as a RetryAfter hint.
type openError struct {
	left    time.Duration
	probing bool // half-open, refused because the probe is out
}

func (e *openError) Error() string {
	if e.probing {
		return fmt.Sprintf("circuit breaker half-open: probe in flight, retry after %v", e.left)
	}
	return fmt.Sprintf("circuit breaker open: retry after %v", e.left)
}

func (e *openError) Unwrap() error             { return ErrOpen }
func (e *openError) RetryAfter() time.Duration { return e.left }
