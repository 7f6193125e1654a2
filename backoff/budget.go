package backoff

import (
	"math"
	"sync"
)

// Budget is a client-wide retry budget, as Finagle's RetryBudget: every
// request deposits ratio tokens (up to max, the burst; it starts full), and
// every retry spends one whole token, so with ratio 0.1 retries stay near
// 10% of requests. It is safe for concurrent use; share one between
// supervisors.
type Budget struct {
	mu     sync.Mutex
	ratio  float64
	max    float64
	tokens float64
}

// NewBudget returns a full Budget. ratio must be in (0, 1000] and max in
// [1, 1e9]; anything else (NaN included) is an error that names the value.
func NewBudget(ratio, max float64) (*Budget, error) {
	if !(ratio > 0 && ratio <= 1000) {
		return nil, invalid("ratio", ratio, "not in (0, 1000]")
	}
	if !(max >= 1 && max <= 1e9) || math.IsInf(max, 0) {
		return nil, invalid("max", max, "not in [1, 1e9]")
	}
	return &Budget{ratio: ratio, max: max, tokens: max}, nil
}

// OnRequest deposits ratio tokens for one request (not a retry).
func (b *Budget) OnRequest() {
	b.mu.Lock()
	b.tokens = min(b.max, b.tokens+b.ratio)
	b.mu.Unlock()
}

// TryRetry spends one token and reports true, or reports false when less
// than one token is left.
func (b *Budget) TryRetry() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// tokensLeft returns the tokens left, for tests.
func (b *Budget) tokensLeft() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tokens
}
