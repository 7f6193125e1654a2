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
	LogName    = "name"
	LogState   = "state"
	LogAttempt = "attempt"
	LogDelay   = "delay"
	LogReason  = "reason"
	LogHint    = "hint"
	LogErr     = "err"
	LogUptime  = "uptime"
)

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

func (s *Supervisor[C]) logConnected(st health.Status) {
	s.log(slog.LevelInfo, "connected", st, slog.Uint64("connects", st.Connects))
}

func (s *Supervisor[C]) logAttemptFailed(st health.Status, d Delay) {
	s.log(slog.LevelWarn, "attempt failed", st, append([]slog.Attr{slog.Int(LogAttempt, st.Attempt), errAttr(st)}, delayAttrs(d)...)...)
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
