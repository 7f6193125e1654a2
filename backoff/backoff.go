package backoff

import (
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/redial-go/redial/internal/seed"
)

// Backoff computes the delays between attempts. It owns its random generator
// (a math/rand/v2 PCG held by value, randomly seeded without crypto). A
// Backoff is not safe for concurrent use: one goroutine owns it.
type Backoff struct {
	rng      rand.PCG
	strategy Strategy
	base     int64 // nanoseconds
	cap      int64
	prev     int64 // Decorrelated: the previous sleep
	attempt  int
}

// New returns a Backoff for c. Zero fields take their defaults:
// Decorrelated, Base 1s, Cap 1 minute, a random seed. A bad field
// (a negative Base or Cap, a Cap above 24h or below Base, an unknown
// Strategy) is an error wrapping ErrInvalidOptions that names it.
func New(c Config) (*Backoff, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	c = c.withDefaults()
	b := &Backoff{strategy: c.Strategy, base: int64(c.Base), cap: int64(c.Cap)}
	if c.Seed != 0 {
		b.rng.Seed(c.Seed, c.Seed^0x9e3779b97f4a7c15)
	} else {
		b.rng.Seed(seed.Pair())
	}
	b.Reset()
	return b, nil
}

// Config returns the configuration b runs with, defaults filled in.
func (b *Backoff) Config() Config {
	return Config{Strategy: b.strategy, Base: time.Duration(b.base), Cap: time.Duration(b.cap)}
}

// Next returns the delay before the next attempt and advances the sequence.
// The delay is never negative and never longer than Cap.
func (b *Backoff) Next() time.Duration {
	n := b.attempt
	b.attempt++
	switch b.strategy {
	case Full:
		return time.Duration(b.between(0, b.exp(n)))
	case Equal:
		v := b.exp(n)
		return time.Duration(v - v/2 + b.between(0, v/2))
	case Exponential:
		return time.Duration(b.exp(n))
	}
	d := min(b.cap, b.between(b.base, 3*b.prev)) // prev <= Cap <= 24h: no overflow
	b.prev = d
	return time.Duration(d)
}

// Reset returns b to its first delay.
func (b *Backoff) Reset() {
	b.attempt = 0
	b.prev = b.base
}

// Attempt returns the number of Next calls since the last Reset.
func (b *Backoff) Attempt() int { return b.attempt }

// exp returns min(cap, base*2^n) without overflowing.
func (b *Backoff) exp(n int) int64 {
	if n >= 62 || b.base > b.cap>>n {
		return b.cap
	}
	return b.base << n
}

// between returns a uniform value in [lo, hi]; lo when hi <= lo.
func (b *Backoff) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + int64(b.below(uint64(hi-lo)+1))
}

// below returns a uniform value in [0, n), n > 0, by Lemire's
// multiply-and-shift with rejection: no division on the common path, no
// floating point.
func (b *Backoff) below(n uint64) uint64 {
	hi, lo := bits.Mul64(b.rng.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(b.rng.Uint64(), n)
		}
	}
	return hi
}
