package supervisor

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redial-go/redial/backoff"
)

// Defaults of Options.
const (
	DefaultStableAfter    = 30 * time.Second
	DefaultConnectTimeout = 20 * time.Second       // gRPC's MIN_CONNECT_TIMEOUT
	DefaultMaxHint        = backoff.DefaultMaxHint // 5 minutes
)

// Options configures a Supervisor. New copies it; the zero value of every
// field means its documented default.
type Options[C comparable] struct {
	// Name names the connection in Status, errors and logs.
	Name string
	// Backoff paces the attempts: default Decorrelated, Base 1s, Cap 1 minute.
	Backoff backoff.Config
	// StableAfter is how long a connection must have lived for its loss to
	// reset the backoff; 0 means 30s. One that broke sooner is flapping and
	// keeps the backoff growing.
	StableAfter time.Duration
	// ConnectTimeout bounds one attempt: Connect and OnConnect together;
	// 0 means 20s.
	ConnectTimeout time.Duration
	// MaxAttempts is the number of consecutive failed attempts after which
	// the supervisor gives up (Failed); 0 means never give up.
	MaxAttempts int
	// MaxHint is the longest server hint (Retry-After and friends) honored;
	// 0 means 5 minutes.
	MaxHint time.Duration
	// Budget, when set, is a retry budget shared with other supervisors. A
	// retry it refuses waits Cap instead; it never makes a supervisor give up.
	Budget *backoff.Budget
	// OnConnect runs after every Connect, before the state is Connected: the
	// place to re-subscribe, re-LISTEN, re-register handlers. Its ctx is the
	// attempt's (ConnectTimeout). An error counts as a failed attempt and
	// closes that connection.
	OnConnect func(ctx context.Context, conn C) error
	// Classify maps the transport's errors to classes (backoff.Permanent,
	// backoff.RetryAfter) and may redact them. It sees every error of
	// Connect, OnConnect, Watch and Invalidate. nil keeps errors as they are.
	Classify func(error) error
	// Logger receives one record per state change; nil is silent.
	Logger *slog.Logger
}

// PolicyConfig is the part of Options that decides delays.
func (o Options[C]) PolicyConfig() PolicyConfig {
	return PolicyConfig{Backoff: o.Backoff, StableAfter: o.StableAfter, MaxHint: o.MaxHint, Budget: o.Budget}
}

// validate checks every field and fills in the defaults.
func (o *Options[C]) validate() error {
	switch {
	case o.ConnectTimeout < 0:
		return fmt.Errorf("supervisor: ConnectTimeout %v is negative", o.ConnectTimeout)
	case o.MaxAttempts < 0:
		return fmt.Errorf("supervisor: MaxAttempts %d is negative", o.MaxAttempts)
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	return nil
}
