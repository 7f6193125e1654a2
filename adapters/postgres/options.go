package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// Options are the settings NewConn, NewListener and NewPool share. The
// zero value of every field but DSN means its default; the constructors
// copy them.
type Options struct {
	// DSN is the connection string, as a URL
	// (postgres://user:password@host:5432/db?sslmode=verify-full) or as
	// key=value pairs (host=... user=... password='...' dbname=...).
	// Required. Its password never appears in an error, a log line or a
	// Status, in either form.
	DSN string
	// Name names the connection in Status, errors and logs; the default
	// depends on the constructor ("postgres", "postgres-listener",
	// "postgres-pool").
	Name string
	// Backoff paces reconnection attempts: default Decorrelated, Base 1s,
	// Cap 1 minute.
	Backoff backoff.Config
	// StableAfter, ConnectTimeout, MaxAttempts, MaxHint, Budget and Logger
	// are passed to the supervisor; see supervisor.Options for their
	// meaning and defaults (30s, 20s, never give up, 5 minutes, none,
	// silent).
	StableAfter    time.Duration
	ConnectTimeout time.Duration
	MaxAttempts    int
	MaxHint        time.Duration
	Budget         *backoff.Budget
	Logger         *slog.Logger
	// TooManyConnectionsHint is the shortest wait after the server refused
	// a connection with SQLSTATE 53300 (too many connections); 0 means
	// DefaultTooManyConnectionsHint (5s).
	TooManyConnectionsHint time.Duration
}

// check validates the fields this package adds to the supervisor's.
func (o *Options) check() error {
	if o.TooManyConnectionsHint < 0 {
		return fmt.Errorf("%w: TooManyConnectionsHint %v is negative", ErrInvalidOptions, o.TooManyConnectionsHint)
	}
	if o.TooManyConnectionsHint == 0 {
		o.TooManyConnectionsHint = DefaultTooManyConnectionsHint
	}
	return checkDSN(o.DSN)
}

// supervise returns the supervisor options for o: its name or name, and a
// Classify that knows the DSN's secrets.
func supervise[C comparable](o Options, name string, secrets []string, onConnect func(context.Context, C) error) supervisor.Options[C] {
	if o.Name != "" {
		name = o.Name
	}
	hint := o.TooManyConnectionsHint
	return supervisor.Options[C]{
		Name:           name,
		Backoff:        o.Backoff,
		StableAfter:    o.StableAfter,
		ConnectTimeout: o.ConnectTimeout,
		MaxAttempts:    o.MaxAttempts,
		MaxHint:        o.MaxHint,
		Budget:         o.Budget,
		Logger:         o.Logger,
		OnConnect:      onConnect,
		Classify:       func(err error) error { return classify(err, secrets, hint) },
	}
}

// newSupervisor wraps supervisor.New's option errors with this package's
// sentinel; they never hold the DSN.
func newSupervisor[C comparable](c supervisor.Connector[C], o supervisor.Options[C]) (*supervisor.Supervisor[C], error) {
	s, err := supervisor.New(c, o)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	return s, nil
}

// pingDefaults checks a PingInterval and PingTimeout and fills in their
// defaults: interval 0 means defInterval, timeout 0 means
// DefaultPingTimeout.
func pingDefaults(interval, timeout *time.Duration, defInterval time.Duration) error {
	switch {
	case *interval < 0:
		return fmt.Errorf("%w: PingInterval %v is negative", ErrInvalidOptions, *interval)
	case *timeout < 0:
		return fmt.Errorf("%w: PingTimeout %v is negative", ErrInvalidOptions, *timeout)
	}
	if *interval == 0 {
		*interval = defInterval
	}
	if *timeout == 0 {
		*timeout = DefaultPingTimeout
	}
	return nil
}
