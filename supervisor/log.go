package supervisor

import (
	"context"
	"log/slog"
	"time"

	"github.com/redial-go/redial/internal/policy"
)

// Log attribute keys; they are stable, so dashboards and alerts can rely
// on them.
const (
	LogName                = "name"
	LogState               = "state"
	LogConsecutiveFailures = "consecutive_failures" // failed attempts in a row
	LogDelay               = "delay"                // the wait before the next attempt
	LogReason              = "reason"               // why the delay is that long: backoff, hint, budget, first-retry, failover
	LogHint                = "hint"                 // the server's hint, when it gave one
	LogErr                 = "err"                  // redacted
	LogUptime              = "uptime"               // how long the lost (or replaced) connection lived
	LogRepeated            = "repeated"             // how many times in a row this failure happened
	LogConnects            = "connects"             // connections established so far
	LogEndpoint            = "endpoint"             // the endpoint in use, with several
	LogOutage              = "outage"               // connected after a loss or failures: since the loss, or since Run began
	LogAttempts            = "attempts"             // connected after a loss or failures: the attempts it took, this one included
	LogEjectedFor          = "ejected_for"          // an endpoint ejected: for how long
)

// Repeated identical failures are logged at Warn this many times in a row,
// then at Debug, except for one Warn per repeatWarnEvery.
const (
	repeatWarnings  = 3
	repeatWarnEvery = time.Minute
)

// logState is the Logger's memory of repeated failures and of the
// outage they belong to, which the connected record sums up however many
// failures went to Debug. Run owns it.
type logState struct {
	logger *slog.Logger
	memory
}

// memory is what a connection resets.
type memory struct {
	lastErr  string
	repeated int
	lastWarn time.Time
	down     time.Time // since the loss, or the first attempt; zero while connected
	failed   int       // attempts failed since down
	lost     bool      // down is a loss's: an outage even if no attempt failed
}

// note keeps what the connected record sums up.
func (l *logState) note(ev event, now time.Time) {
	switch ev {
	case evConnecting:
		if l.down.IsZero() {
			l.down = now
		}
	case evLost, evReplaced:
		l.down, l.failed, l.lost = now, 0, ev == evLost
	case evAttemptFailed:
		l.failed++
	}
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

// event is what happened, for the one record logged per state change.
type event int

const (
	evConnecting event = iota
	evConnected
	evAttemptFailed
	evLost
	evReplaced
	evGaveUp
	evStopped
	evSwitched     // a replacement is live; the old one closes
	evSwitchFailed // a replacement failed; the old one stays
)

func (s *Supervisor[C]) writeLog(ev event, d *policy.Delay, uptime time.Duration, replacedBy error) {
	st := &s.status
	level, msg := slog.LevelInfo, ""
	attrs := make([]slog.Attr, 0, 10)
	attrs = append(attrs, slog.String(LogName, st.Name), slog.String(LogState, st.State.String()))
	if st.Endpoint != "" {
		attrs = append(attrs, slog.String(LogEndpoint, st.Endpoint))
	}
	switch ev {
	case evConnecting:
		level, msg = slog.LevelDebug, "connecting"
		attrs = append(attrs, slog.Int(LogConsecutiveFailures, st.ConsecutiveFailures))
	case evConnected:
		msg = "connected"
		attrs = append(attrs, slog.Uint64(LogConnects, st.Connects))
		if l := s.logs; l.failed > 0 || l.lost {
			attrs = append(attrs, slog.Duration(LogOutage, time.Since(l.down)), slog.Int(LogAttempts, l.failed+1))
		}
	case evAttemptFailed:
		var n int
		level, n = s.logs.failureLevel(st.Err.Error(), time.Now())
		msg = "attempt failed"
		attrs = append(attrs, slog.Int(LogConsecutiveFailures, st.ConsecutiveFailures), slog.String(LogErr, st.Err.Error()), slog.Int(LogRepeated, n))
	case evLost:
		level, msg = slog.LevelWarn, "connection lost"
		attrs = append(attrs, slog.Duration(LogUptime, uptime), slog.String(LogErr, st.Err.Error()))
	case evReplaced:
		msg = "connection replaced"
		attrs = append(attrs, slog.Duration(LogUptime, uptime), slog.String(LogErr, replacedBy.Error()))
	case evGaveUp:
		level, msg = slog.LevelError, "gave up"
		attrs = append(attrs, slog.Int(LogConsecutiveFailures, st.ConsecutiveFailures), slog.String(LogErr, st.Err.Error()))
	case evStopped:
		msg = "stopped"
	case evSwitched:
		msg = "connection switched"
		attrs = append(attrs, slog.Uint64(LogConnects, st.Connects))
	case evSwitchFailed:
		level, msg = slog.LevelWarn, "switch failed, the connection stays"
		attrs = append(attrs, slog.String(LogErr, replacedBy.Error()))
	}
	if d != nil {
		attrs = append(attrs, slog.Duration(LogDelay, d.Wait), slog.String(LogReason, d.Reason.String()))
		if d.Hint > 0 {
			attrs = append(attrs, slog.Duration(LogHint, d.Hint))
		}
	}
	s.logs.logger.LogAttrs(context.Background(), level, msg, attrs...)
}

// writeEndpointLog logs endpoint i's ejection for ejected (Warn, with its
// consecutive failures), or, for 0, its return to health (Info).
func (s *Supervisor[C]) writeEndpointLog(i int, ejected time.Duration, now time.Time) {
	attrs := []slog.Attr{slog.String(LogName, s.status.Name), slog.String(LogEndpoint, s.text(s.eps.names[i]))}
	if ejected <= 0 {
		s.logs.logger.LogAttrs(context.Background(), slog.LevelInfo, "endpoint healthy again", attrs...)
		return
	}
	attrs = append(attrs, slog.Int(LogConsecutiveFailures, s.policy.Endpoint(i, now).Failures), slog.Duration(LogEjectedFor, ejected))
	s.logs.logger.LogAttrs(context.Background(), slog.LevelWarn, "endpoint ejected", attrs...)
}

// logCloseError logs a failed Close at Debug: the connection is gone either way.
func (s *Supervisor[C]) logCloseError(err error) {
	if s.logs != nil {
		s.logs.logger.LogAttrs(context.Background(), slog.LevelDebug, "close failed",
			slog.String(LogName, s.status.Name), slog.String(LogErr, s.text(err.Error())))
	}
}
