package backoff

import (
	"errors"
	"fmt"
	"time"

	"github.com/redial-go/redial/internal/opterr"
)

// Strategy chooses how a Backoff spreads its delays.
type Strategy int

const (
	// Decorrelated is the default: sleep = min(Cap, rand[Base, 3*prev]), where
	// prev starts at Base and is the previous sleep.
	Decorrelated Strategy = iota
	// Full is full jitter: rand[0, min(Cap, Base*2^n)].
	Full
	// Equal is equal jitter: v/2 + rand[0, v/2] with v = min(Cap, Base*2^n).
	Equal
	// Exponential is min(Cap, Base*2^n) without jitter, for comparison and tests.
	Exponential
)

// String returns the strategy's lower-case name.
func (s Strategy) String() string {
	switch s {
	case Decorrelated:
		return "decorrelated"
	case Full:
		return "full"
	case Equal:
		return "equal"
	case Exponential:
		return "exponential"
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// Defaults and limits of a Config.
const (
	DefaultBase = time.Second
	DefaultCap  = time.Minute
	// MaxCap is the longest Cap a Config accepts: a reconnect delay of more
	// than a day is a mistake in a unit, not a policy.
	MaxCap = 24 * time.Hour
)

// ErrInvalidConfig is wrapped by every error Validate returns.
var ErrInvalidConfig = errors.New("invalid backoff config")

// Config describes a Backoff. Its zero value is the default: Decorrelated
// jitter with Base 1s and Cap 1 minute, seeded from crypto/rand.
type Config struct {
	Strategy Strategy
	Base     time.Duration // 0 means 1s
	Cap      time.Duration // 0 means 1 minute; at most MaxCap
	// Seed fixes the generator for reproducible runs; 0 means seeded from
	// crypto/rand. Backoffs built from one non-zero Seed draw the same
	// sequence, so give each client its own seed.
	Seed uint64
}

// Validate reports the first bad field of c, naming it: a negative Base or
// Cap, a Cap above MaxCap, a Cap below Base, an unknown Strategy. The error
// wraps ErrInvalidConfig and supervisor.ErrInvalidOptions.
func (c Config) Validate() error {
	switch {
	case c.Strategy < Decorrelated || c.Strategy > Exponential:
		return invalid("Strategy", int(c.Strategy), "unknown (want Decorrelated, Full, Equal or Exponential)")
	case c.Base < 0:
		return invalid("Base", c.Base, "negative")
	case c.Cap < 0:
		return invalid("Cap", c.Cap, "negative")
	case c.Cap > MaxCap:
		return invalid("Cap", c.Cap, "longer than %v", MaxCap)
	}
	d := c.withDefaults()
	if d.Cap < d.Base {
		return invalid("Cap", d.Cap, "shorter than Base %v", d.Base)
	}
	return nil
}

// invalid is the error for a bad field of a Config, a Budget or
// RetryOptions.
func invalid(field string, v any, problem string, args ...any) error {
	e := opterr.New("backoff", field, v, problem, args...)
	e.Also = ErrInvalidConfig
	return e
}

// withDefaults returns c with zero Base and Cap replaced by the defaults.
func (c Config) withDefaults() Config {
	if c.Base == 0 {
		c.Base = DefaultBase
	}
	if c.Cap == 0 {
		c.Cap = DefaultCap
	}
	return c
}
