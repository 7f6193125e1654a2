package postgres

import (
	"context"
	"time"

	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/supervisor"
)

// pkg prefixes every bad-option error of this package.
const pkg = "postgres"

// target is what the three constructors share: the secrets, the default
// Name, the 53300 hint, whether BeforeConnect rotates the credentials,
// the role asked for, and, with several hosts, the endpoints and their
// last answers.
type target struct {
	secrets  *redact.Set
	name     string
	tooMany  time.Duration
	rotating bool
	hosts    []endpoint // nil with one host
	answers  *answers   // nil with one host
	role     role       // what target_session_attrs asks of a server
}

func (t target) several() bool { return len(t.hosts) > 1 }

func checkHint(d time.Duration) (time.Duration, error) {
	switch {
	case d < 0:
		return 0, opterr.New(pkg, "TooManyConnectionsHint", d, "negative")
	case d == 0:
		return DefaultTooManyConnectionsHint, nil
	}
	return d, nil
}

// Classify is the package's Classify with t's secrets, hint, rotation and
// hosts' answers; the program's runs after it.
func (t target) classify(err error) error {
	return classify(err, t.secrets, t.tooMany, t.rotating, t.answers)
}

func (t target) scrub(err error) error { return scrub(err, t.secrets) }

// remember adds a password BeforeConnect set to the secrets (the last
// redact.Recent are kept).
func (t target) remember(password string) { t.secrets.Remember(redact.Target{}.With(password)) }

// newSupervisor builds the supervisor of c, with classify (t's by
// default) before the program's.
func newSupervisor[C comparable](t target, classify func(error) error, c supervisor.Connector[C], o supervisor.Options[C]) (*supervisor.Supervisor[C], error) {
	if classify == nil {
		classify = t.classify
	}
	return adapt.New(adapt.Spec{Pkg: pkg, Name: t.name, Classify: classify, Set: t.secrets}, c, o)
}

// lifecycle is what Conn, Listener and Pool offer of their supervisor:
// Run, Status, Subscribe, Done, Err, Name, History, RetryNow.
type lifecycle[C comparable] = adapt.Lifecycle[C]

// withOnConnect returns the Options[C] of the Settings s and onConnect.
func withOnConnect[C comparable](s supervisor.Settings, onConnect func(context.Context, C) error) supervisor.Options[C] {
	return supervisor.Options[C]{Settings: s, OnConnect: onConnect}
}

// pingDefaults checks a PingInterval and PingTimeout and fills in their
// defaults.
func pingDefaults(interval, timeout *time.Duration) error {
	switch {
	case *interval < 0:
		return opterr.New(pkg, "PingInterval", *interval, "negative")
	case *timeout < 0:
		return opterr.New(pkg, "PingTimeout", *timeout, "negative")
	}
	if *interval == 0 {
		*interval = DefaultPingInterval
	}
	if *timeout == 0 {
		*timeout = DefaultPingTimeout
	}
	return nil
}
