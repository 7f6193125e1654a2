package supervisor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/internal/policy"
	"github.com/redial-go/redial/internal/redact"
)

// Errors a Supervisor returns, checked with errors.Is.
var (
	ErrFailed         = errors.New("gave up")            // Run and Conn after Failed; wraps the last error too
	ErrStopped        = errors.New("supervisor stopped") // Conn after Run returned
	ErrAlreadyStarted = errors.New("supervisor already started")
	ErrInvalidated    = errors.New("connection invalidated") // Invalidate(conn, nil)
	ErrLost           = errors.New("connection lost")        // Watch returned nil
	// ErrReplaced, wrapped by why a working connection ended (Invalidate's
	// err, Watch's, Classify's), has it replaced, not lost: closed and
	// dialed again at once, a reconnect but no loss, failure or outage
	// unless that attempt fails. Not for one the server ended.
	ErrReplaced = errors.New("connection replaced")
	// ErrPanicked is wrapped by Run's error when a callback panicked (the
	// value and the stack, redacted); Run then panics again with the value.
	ErrPanicked = errors.New("callback panicked")
	// ErrSilent is wrapped by every liveness failure an adapter reports: a
	// missed heartbeat, an idle timeout, a ping left unanswered.
	ErrSilent = errors.New("peer silent")
)

// InvalidatedError is the cause (context.Cause) of a Watch's ctx that
// Invalidate ended: the program saw the connection fail, so it is broken
// (close it at once), whereas a ctx that ended with any other cause means
// the supervisor is stopping (close it politely). Err is the program's
// reason; the text is Err's.
type InvalidatedError struct{ Err error }

func (e *InvalidatedError) Error() string { return e.Err.Error() }
func (e *InvalidatedError) Unwrap() error { return e.Err }

// Supervisor owns one connection's lifecycle: dial, watch, close, back off,
// dial again. Run owns it, making each step on a short-lived goroutine it
// waits for; every other method is safe for concurrent use from any
// goroutine, never blocks on Run (Conn waits only for its ctx or a state
// change), and never runs user code.
type Supervisor[C comparable] struct {
	connector Connector[C] // its optional interfaces are asserted where used, not kept
	eps       *endpoints[C]
	secrets   *redact.Target // Settings.Secrets; nil: none named
	opts      settings
	onConnect func(ctx context.Context, conn C) error
	invalid   chan error                // Invalidate's reason for the live connection; capacity 1
	restUntil atomic.Pointer[time.Time] // until when the next attempt's endpoint rests (a hint), on the monotonic clock; set by Run, ReportSuccess ends it
	done      chan struct{}             // closed when Run has returned; then failErr is Run's result

	// Run owns these (its goroutine, or its hand while that one waits).
	policy   *policy.Policy
	logs     *logState // with a Logger
	failures int32     // consecutive failed attempts
	endpoint int32     // the endpoint of the next or current attempt

	cut         atomic.Int32 // set under mu: who may cut the Backoff wait (cutBy)
	ready       bool         // under mu: live is Connected
	over        bool         // under mu: the final Status (Stopped or Failed) was published: subscriptions are closed
	replacing   bool         // under mu: outageStart is a replacement's (ErrReplaced): an outage only once an attempt failed
	started     bool         // under mu: Run was called
	mu          sync.Mutex
	status      health.Status
	live        C                       // the connection Connect returned, until it is dropped
	invalidErr  error                   // Invalidate(live)'s reason, also sent on invalid; nil before
	cancelWatch context.CancelCauseFunc // ends live's Watch; Invalidate calls it
	failErr     error                   // Run's error when Failed, set before the final Status
	outageStart time.Time               // when the current outage began; zero when none
	reconnects  window                  // reconnects over the last minute
	changed     chan struct{}           // closed on the next change; made when someone waits
	life        *lifeState[C]           // made by Acquire, Drain, Replace, or New with a MaxConnectionAge (drain.go)
	subs        map[chan health.Status]struct{}
	late        atomic.Pointer[panicError] // a panic of a call Run abandoned (latePanic); set under mu
	history     []entry                    // grows to health.HistoryLen, then is a ring
	recorded    int                        // transitions recorded so far
}

// New returns a Supervisor for c; Run starts it. The options are copied,
// and their zero values mean: Name "", Backoff Decorrelated with Base 1s
// and Cap 1 minute, StableAfter 30s, ConnectTimeout 10s, MaxAttempts 0
// (never give up), MaxHint 5 minutes, no Budget, no Classify, no Logger,
// no OnConnect. Bad options are an error wrapping ErrInvalidOptions that
// names the field.
func New[C comparable](c Connector[C], o Options[C]) (*Supervisor[C], error) {
	if c == nil {
		return nil, opterr.New("supervisor", "Connector", nil, "nil")
	}
	so := o.Settings
	if err := so.validate(); err != nil {
		return nil, err
	}
	eps, err := endpointsOf(c, so.PreferFirst)
	if err != nil {
		return nil, err
	}
	p, err := policy.New(so.policyConfig(eps.count()))
	if err != nil {
		return nil, opterr.Nest(err, "supervisor", "Backoff")
	}
	var secrets *redact.Target
	if slices.ContainsFunc(so.Secrets, func(v string) bool { return v != "" }) {
		t := redact.Named(so.Secrets...)
		secrets, so.Name = &t, t.Text(so.Name)
	}
	now := time.Now()
	s := &Supervisor[C]{
		secrets:    secrets,
		connector:  c,
		opts:       settings{connectTimeout: so.ConnectTimeout, maxAttempts: so.MaxAttempts, classify: so.Classify},
		onConnect:  o.OnConnect,
		policy:     p,
		status:     health.Status{Name: so.Name, State: health.Idle, Since: now},
		reconnects: window{origin: now},
		invalid:    make(chan error, 1),
		done:       make(chan struct{}),
		eps:        eps,
	}
	if so.Logger != nil {
		s.logs = &logState{logger: so.Logger}
	}
	s.noteEndpoints(now)
	if so.MaxConnectionAge > 0 {
		s.life = &lifeState[C]{maxAge: so.MaxConnectionAge, maxAgeJitter: so.MaxConnectionAgeJitter}
	}
	return s, nil
}

// Status returns a snapshot of the connection's health.
func (s *Supervisor[C]) Status() health.Status {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshot(now)
}

// Conn returns the live connection, waiting for one while the supervisor is
// Idle, Connecting or in Backoff. It fails at once when the supervisor has
// Failed (wrapping ErrFailed and the last error), stopped (ErrStopped) or
// is draining (ErrDraining; both once drained), and when ctx ends (wrapping ctx's error and
// the last error).
//
// The connection may break at any time after Conn returns it; report that
// with Invalidate.
func (s *Supervisor[C]) Conn(ctx context.Context) (C, error) { return s.conn(ctx, false) }

// conn is Conn; hold counts the connection as in use (Acquire).
func (s *Supervisor[C]) conn(ctx context.Context, hold bool) (C, error) {
	var zero C
	for {
		s.mu.Lock()
		// An invalidated connection is not handed out again, even before
		// Run's goroutine has dropped it: a read loop would spin on it.
		conn, ready, st, lastErr, failErr := s.live, s.ready && (s.invalidErr == nil || s.invalidErr == errSwitch), s.status.State, s.status.Err, s.failErr
		draining := s.life != nil && s.life.draining
		var changed chan struct{}
		if !ready && !draining && st != health.Failed && st != health.Stopped { // it waits: made only then, not kept by a Conn that returns at once
			if s.changed == nil {
				s.changed = make(chan struct{})
			}
			changed = s.changed
		}
		if ready && !draining && hold {
			l := s.lifeLocked()
			l.inUse++
			l.liveUse++
		}
		s.mu.Unlock()
		switch {
		case st == health.Failed:
			return zero, failErr
		case st == health.Stopped && draining:
			return zero, s.errorf("%w: %w", ErrDraining, ErrStopped)
		case st == health.Stopped:
			return zero, s.errorf("%w", ErrStopped)
		case draining:
			return zero, s.errorf("%w", ErrDraining)
		case ready:
			return conn, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			if lastErr != nil {
				return zero, s.errorf("no connection: %w (last error: %w)", ctx.Err(), lastErr)
			}
			return zero, s.errorf("no connection: %w", ctx.Err())
		}
	}
}

// Invalidate tells the supervisor that conn failed (a read returned EOF, a
// query failed with a connection error): it closes conn and reconnects. err
// is the reason shown in Status (nil means ErrInvalidated; ErrReplaced, no
// loss). A Watcher's Watch sees its ctx end; a conn invalidated while
// OnConnect still runs is dropped as soon as OnConnect returns. A conn that
// is not the live one, already replaced or closed, is ignored, so any
// number of goroutines can report the same failure. It never blocks.
func (s *Supervisor[C]) Invalidate(conn C, err error) {
	var zero C
	if conn == zero {
		return
	}
	if err == nil {
		err = ErrInvalidated
	}
	var cancel context.CancelCauseFunc
	s.mu.Lock()
	if conn == s.live && (s.invalidErr == nil || s.invalidErr == errSwitch) { // the first reason wins, over a replacement's
		s.invalidErr = err
		select { // a replacement's token, unread
		case <-s.invalid:
		default:
		}
		s.invalid <- err // cannot block: one send per live connection, drained when it is dropped
		cancel = s.cancelWatch
	}
	s.mu.Unlock()
	if cancel != nil {
		cancel(&InvalidatedError{err})
	}
}

// Subscribe returns the health channel: it holds at most one Status, the
// newest replacing an unread older one, starting with the current Status.
// A subscriber that never reads never slows the supervisor; totals
// (Connects, Attempt) live in the Status, so conflation loses no counts.
// The channel is closed after the final Status (Stopped or Failed) has
// been offered, so `for st := range ch` ends by itself. The returned func
// unsubscribes and closes the channel sooner; calling it is always safe.
func (s *Supervisor[C]) Subscribe() (<-chan health.Status, func()) {
	ch := make(chan health.Status, 1)
	now := time.Now()
	s.mu.Lock()
	ch <- s.snapshot(now)
	if s.over {
		close(ch)
		s.mu.Unlock()
		return ch, func() {}
	}
	if s.subs == nil {
		s.subs = make(map[chan health.Status]struct{})
	}
	s.subs[ch] = struct{}{}
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		if _, ok := s.subs[ch]; ok {
			delete(s.subs, ch)
			close(ch)
		}
		s.mu.Unlock()
	}
}

// Done returns a channel that is closed once Run has returned, or is
// about to panic with a callback's panic.
func (s *Supervisor[C]) Done() <-chan struct{} { return s.done }

// Err returns Run's error once the supervisor gave up (wrapping ErrFailed,
// and ErrPanicked when a callback panicked), from before the final Status
// is published: a loop over Subscribe's channel that ended can read it.
// It is nil until then, and when Run's ctx ended.
func (s *Supervisor[C]) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failErr
}

// Name returns the supervisor's name (Options.Name, or the adapter's
// default: its target, redacted).
func (s *Supervisor[C]) Name() string { return s.status.Name } // set once, by New

// errorf formats an error prefixed with the supervisor's name.
func (s *Supervisor[C]) errorf(format string, args ...any) error {
	if name := s.status.Name; name != "" {
		format = "redial " + name + ": " + format
	} else {
		format = "redial: " + format
	}
	return fmt.Errorf(format, args...)
}
