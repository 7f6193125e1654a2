package supervisor

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/internal/policy"
	"github.com/redial-go/redial/internal/redact"
)

// Defaults of Settings; MaxHint's is backoff.DefaultMaxHint.
const (
	DefaultStableAfter    = policy.DefaultStableAfter // 30s
	DefaultConnectTimeout = 10 * time.Second          // a stalled path fails an attempt in 10s
)

// ErrInvalidOptions is wrapped by every bad-option error of every
// constructor of the module. The message says `<package>: <Field> <value>:
// <what is wrong>` once: `websocket: Supervisor.ConnectTimeout -1s: negative`.
// Everywhere a duration option must not be negative nor longer than 24h.
var ErrInvalidOptions = opterr.ErrInvalid

// Settings are the options that do not depend on the connection type:
// one value serves every supervisor and adapter (Options embeds it). The
// zero value of every field means its documented default.
type Settings struct {
	// Name names the connection in Status, errors and logs; adapters
	// default it to their target, redacted.
	Name string
	// Backoff paces the attempts: default Decorrelated, Base 1s, Cap 1
	// minute.
	Backoff backoff.Config
	// StableAfter is how long a connection must have lived for its loss to
	// reset the backoff; 0 means 30s.
	StableAfter time.Duration
	// ConnectTimeout bounds one attempt, Connect and OnConnect together
	// (see Connector); 0 means 10s.
	ConnectTimeout time.Duration
	// MaxAttempts is the number of consecutive failed attempts after which
	// the supervisor gives up (Failed); 0 means never give up.
	MaxAttempts int
	// MaxHint is the longest server hint honored; 0 means 5 minutes.
	MaxHint time.Duration
	// Budget, when set, is a retry budget shared with other supervisors: a
	// retry it refuses waits Cap instead.
	Budget *backoff.Budget
	// Classify maps errors to classes (backoff.Permanent,
	// backoff.RetryAfter): every error of Connect, OnConnect, Watch and
	// Invalidate, after the adapter's own Classify. backoff.Retryable lifts
	// a permanent mark, the adapter's too.
	Classify func(error) error
	// Logger receives one record per state change, in order, off the
	// supervisor's goroutine. nil is silent.
	Logger *slog.Logger
	// Secrets are values never shown: masked, with their URL encodings
	// and base64 (name "user:password" for a Basic authorization), in
	// every text the supervisor stores, logs or returns, and an error
	// holding one is rebuilt so that errors.As cannot reach it. Each is
	// empty (ignored) or at least 4 bytes. A setting, not a Connector
	// method: a credential that changes per attempt is the Connector's to
	// mask in its own errors, as the adapters do with theirs.
	Secrets []string
	// FailoverSpread applies to a Connector with several Endpoints: the
	// next endpoint is tried after rand[0, FailoverSpread); 0 means
	// Backoff.Base/2 (BENCHMARKS.md has the figures).
	FailoverSpread time.Duration
	// EjectAfter, with several Endpoints, is the number of failed attempts
	// in a row (a server's hint, a lost connection not counted) that eject
	// an endpoint: it is skipped for a time drawn from [d/2, d], d being
	// EjectBase doubled per ejection in a row up to EjectCap, then probed
	// (tried in turn: a failure ejects it again, a connection makes it
	// healthy). Never every endpoint at once. 0 means 3, negative never; EjectBase 0 means 10s,
	// EjectCap 0 means 1 minute (BENCHMARKS.md has the sweep).
	EjectAfter          int
	EjectBase, EjectCap time.Duration
	// PreferFirst, with several Endpoints, tries endpoint 0 first whenever
	// it is free, and fails back to it: a connection on another endpoint
	// is closed politely and replaced (ErrReplaced) when endpoint 0's
	// ejection ends, or, if it was not ejected, rand[EjectBase/2,
	// EjectBase] after it was made; never while a server's hint rests it.
	// A failed fail-back counts as endpoint 0's failure and fails over
	// again, after rand[0, FailoverSpread).
	PreferFirst bool
	// MaxConnectionAge, when set, replaces a connection make-before-break
	// (see Replace) once it has lived that long less rand[0,
	// MaxConnectionAgeJitter], so that a fleet rebalances and a credential
	// is renewed without a synchronized churn. 0: never.
	MaxConnectionAge time.Duration
	// MaxConnectionAgeJitter is the most taken off MaxConnectionAge, at
	// most MaxConnectionAge; 0 means MaxConnectionAge/2 (BENCHMARKS.md).
	MaxConnectionAgeJitter time.Duration
}

// Options configures a Supervisor: its Settings, which one value can
// serve to several supervisors and adapters, and OnConnect. The zero value
// of every field means its documented default.
type Options[C comparable] struct {
	Settings
	// OnConnect runs after every Connect, before the state is Connected: the
	// place to re-subscribe, re-LISTEN, re-register handlers. Its ctx is the
	// attempt's (ConnectTimeout). An error counts as a failed attempt and
	// closes that connection.
	OnConnect func(ctx context.Context, conn C) error
}

// settings are the Settings a Supervisor uses once New made its policy
// (which holds the delay rules) and its Status (which holds the Name).
type settings struct {
	connectTimeout time.Duration
	maxAttempts    int
	classify       func(error) error
}

// validate checks every field and fills in the defaults.
func (o *Settings) validate() error {
	if o.MaxAttempts < 0 {
		return opterr.New("supervisor", "MaxAttempts", o.MaxAttempts, "negative")
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"ConnectTimeout", o.ConnectTimeout}, {"StableAfter", o.StableAfter}, {"MaxHint", o.MaxHint}, {"FailoverSpread", o.FailoverSpread},
		{"EjectBase", o.EjectBase}, {"EjectCap", o.EjectCap}, {"MaxConnectionAge", o.MaxConnectionAge}, {"MaxConnectionAgeJitter", o.MaxConnectionAgeJitter}} {
		if err := opterr.Duration("supervisor", f.name, f.d); err != nil {
			return err
		}
	}
	if o.EjectCap > 0 && o.EjectCap < o.EjectBase {
		return opterr.New("supervisor", "EjectCap", o.EjectCap, "shorter than EjectBase %v", o.EjectBase)
	}
	for i, v := range o.Secrets {
		if v != "" && len(v) < redact.MinSecret {
			return opterr.New("supervisor", fmt.Sprintf("Secrets[%d]", i), nil, "%d bytes: shorter than %d, it cannot be masked", len(v), redact.MinSecret)
		}
	}
	if o.MaxConnectionAgeJitter > o.MaxConnectionAge {
		return opterr.New("supervisor", "MaxConnectionAgeJitter", o.MaxConnectionAgeJitter, "more than MaxConnectionAge %v", o.MaxConnectionAge)
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.MaxConnectionAgeJitter == 0 {
		o.MaxConnectionAgeJitter = o.MaxConnectionAge / 2
	}
	return nil
}

// policyConfig is the part of Settings that decides delays.
func (o *Settings) policyConfig(endpoints int) policy.Config {
	return policy.Config{Backoff: o.Backoff, StableAfter: o.StableAfter, MaxHint: o.MaxHint, Budget: o.Budget,
		Endpoints: endpoints, FailoverSpread: o.FailoverSpread,
		EjectAfter: o.EjectAfter, EjectBase: o.EjectBase, EjectCap: o.EjectCap, PreferFirst: o.PreferFirst}
}
