package backoff

import (
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

// Defaults of a Config.
const (
	DefaultBase = time.Second
	DefaultCap  = time.Minute
)

// ErrInvalidOptions is wrapped by every error of a bad Config, Budget,
// BreakerConfig, RetryOptions or HedgeOptions. It is
// supervisor.ErrInvalidOptions: one sentinel for every bad option.
var ErrInvalidOptions = opterr.ErrInvalid

// Config describes a Backoff. Its zero value is the default: Decorrelated
// jitter with Base 1s and Cap 1 minute, randomly seeded.
type Config struct {
	Strategy Strategy
	Base     time.Duration // 0 means 1s
	Cap      time.Duration // 0 means 1 minute; at most 24h
	// Seed fixes the generator for reproducible runs; 0 means a random seed
	// (math/rand/v2's global source and the clock). Backoffs built from one
	// non-zero Seed draw the same sequence, so give each client its own.
	Seed uint64
}

// validate reports the first bad field of c, naming it.
func (c Config) validate() error {
	switch {
	case c.Strategy < Decorrelated || c.Strategy > Exponential:
		return invalid("Strategy", int(c.Strategy), "unknown (want Decorrelated, Full, Equal or Exponential)")
	}
	if err := opterr.Duration("backoff", "Base", c.Base); err != nil {
		return err
	}
	if err := opterr.Duration("backoff", "Cap", c.Cap); err != nil {
		return err
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
	return opterr.New("backoff", field, v, problem, args...)
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
