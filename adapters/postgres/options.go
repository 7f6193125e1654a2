package postgres

import (
	"time"

	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

// pkg prefixes every bad-option error of this package.
const pkg = "postgres"

// target is what the three constructors share: the secrets (the parsed
// DSN's, and the passwords BeforeConnect sets), the redacted name, the
// 53300 hint, whether credentials rotate (BeforeConnect is set), and, for
// a DSN with several hosts, the endpoints and their last answers.
type target struct {
	secrets  *secretSet
	name     string
	tooMany  time.Duration
	rotating bool
	hosts    []endpoint // nil with one host: no Endpoints
	answers  *answers   // nil with one host
}

// several reports whether t has several endpoints: its connectors then
// offer supervisor.Endpoints.
func (t target) several() bool { return len(t.hosts) > 1 }

// checkHint checks a TooManyConnectionsHint and returns it with its
// default filled in.
func checkHint(d time.Duration) (time.Duration, error) {
	switch {
	case d < 0:
		return 0, opterr.New(pkg, "TooManyConnectionsHint", d, "negative")
	case d == 0:
		return DefaultTooManyConnectionsHint, nil
	}
	return d, nil
}

// spec is what the adapter adds to the program's supervisor options: the
// default Name and a Classify that knows the DSN's secrets; the program's
// Classify runs after it.
func (t target) spec() adapt.Spec {
	return adapt.Spec{Pkg: pkg, Name: t.name, Classify: t.classify}
}

func (t target) classify(err error) error {
	return classify(err, t.secrets.all(), t.tooMany, t.rotating, t.answers)
}

// scrub is scrub with t's secrets.
func (t target) scrub(err error) error { return scrub(err, t.secrets.all()) }

// newSupervisor builds the supervisor of c under o, the adapter's way.
func newSupervisor[C comparable](t target, c supervisor.Connector[C], o supervisor.Options[C]) (*supervisor.Supervisor[C], error) {
	return adapt.New(t.spec(), c, o)
}

// pingDefaults checks a PingInterval and PingTimeout and fills in their
// defaults: interval 0 means defInterval, timeout 0 means
// DefaultPingTimeout.
func pingDefaults(interval, timeout *time.Duration, defInterval time.Duration) error {
	switch {
	case *interval < 0:
		return opterr.New(pkg, "PingInterval", *interval, "negative")
	case *timeout < 0:
		return opterr.New(pkg, "PingTimeout", *timeout, "negative")
	}
	if *interval == 0 {
		*interval = defInterval
	}
	if *timeout == 0 {
		*timeout = DefaultPingTimeout
	}
	return nil
}
