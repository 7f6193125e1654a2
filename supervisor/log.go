package supervisor

import (
	"context"
	"log/slog"
	"time"

	"github.com/redial-go/redial/health"
)

// Log attribute keys; they are stable, so dashboards and alerts can rely
// on them.
const (
	LogName     = "name"
	LogState    = "state"
	LogAttempt  = "attempt"  // consecutive failed attempts
	LogDelay    = "delay"    // the wait before the next attempt
	LogReason   = "reason"   // why the delay is that long: backoff, hint, budget, first-retry
	LogHint     = "hint"     // the server's hint, when it gave one
	LogErr      = "err"      // redacted
	LogUptime   = "uptime"   // how long the lost connection lived
	LogRepeated = "repeated" // how many times in a row this failure happened
)

// Repeated identical failures are logged at Warn this many times in a row,
// then at Debug, except for one Warn per repeatWarnEvery.
const (
	repeatWarnings  = 3
	repeatWarnEvery = time.Minute
)

// logState is the Logger's memory of repeated failures. Run's goroutine
// owns it.
type logState struct {
	lastErr  string
	repeated int
	lastWarn time.Time
}

// failureLevel returns the level for a failed attempt with text msg, and
// how many times in a row it happened.
func (l *logState) failureLevel(msg string, now time.Time) (slog.Level, int) {
	if msg == l.lastErr {
		l.repeated++
	} else {
		l.lastErr, l.repeated = msg, 1
	}
	if l.repeated <= repeatWarnings || now.Sub(l.lastWarn) >= repeatWarnEvery {
		l.lastWarn = now
		return slog.LevelWarn, l.repeated
	}
	return slog.LevelDebug, l.repeated
}

// log writes one record when a Logger is set. It runs on Run's goroutine
// with no lock held. Errors reach it already redacted (from the Status).
func (s *Supervisor[C]) log(level slog.Level, msg string, st health.Status, attrs ...slog.Attr) {
	l := s.opts.Logger
	if l == nil || !l.Enabled(context.Background(), level) {
		return
	}
	base := []slog.Attr{slog.String(LogName, st.Name), slog.String(LogState, st.State.String())}
	l.LogAttrs(context.Background(), level, msg, append(base, attrs...)...)
}

func errAttr(st health.Status) slog.Attr {
	if st.Err == nil {
		return slog.Attr{}
	}
	return slog.String(LogErr, st.Err.Error())
}

func delayAttrs(d Delay) []slog.Attr {
	a := []slog.Attr{slog.Duration(LogDelay, d.Wait), slog.String(LogReason, d.Reason.String())}
	if d.Hint > 0 {
		a = append(a, slog.Duration(LogHint, d.Hint))
	}
	return a
}

func (s *Supervisor[C]) logConnecting(st health.Status) {
	s.log(slog.LevelDebug, "connecting", st, slog.Int(LogAttempt, st.Attempt))
}

func (s *Supervisor[C]) logConnected(st health.Status) {
	s.logs = logState{}
	s.log(slog.LevelInfo, "connected", st, slog.Uint64("connects", st.Connects))
}

func (s *Supervisor[C]) logAttemptFailed(st health.Status, d Delay) {
	level, n := s.logs.failureLevel(st.Err.Error(), time.Now())
	s.log(level, "attempt failed", st, append([]slog.Attr{slog.Int(LogAttempt, st.Attempt), errAttr(st), slog.Int(LogRepeated, n)}, delayAttrs(d)...)...)
}

func (s *Supervisor[C]) logLost(st health.Status, uptime time.Duration, d Delay) {
	s.log(slog.LevelWarn, "connection lost", st, append([]slog.Attr{slog.Duration(LogUptime, uptime), errAttr(st)}, delayAttrs(d)...)...)
}

func (s *Supervisor[C]) logFailed(st health.Status) {
	s.log(slog.LevelError, "gave up", st, slog.Int(LogAttempt, st.Attempt), errAttr(st))
}

func (s *Supervisor[C]) logStopped(st health.Status) {
	s.log(slog.LevelInfo, "stopped", st)
}

func (s *Supervisor[C]) logCloseError(err error) {
	s.log(slog.LevelDebug, "close failed", s.Status(), slog.String(LogErr, health.Redact(err.Error())))
}
