package backoff_test

import (
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
)

func TestBudgetRatio(t *testing.T) {
	b, err := backoff.NewBudget(0.5, 2)
	require.NoError(t, err)
	assert.True(t, b.TryRetry())
	assert.True(t, b.TryRetry())
	assert.False(t, b.TryRetry(), "a full budget of 2 allows 2 retries")
	b.OnRequest()
	assert.False(t, b.TryRetry(), "half a token is not a retry")
	b.OnRequest()
	assert.True(t, b.TryRetry())
	for range 100 {
		b.OnRequest()
	}
	assert.Equal(t, 2.0, backoff.Tokens(b), "deposits stop at max")
}

func TestBudgetConcurrent(t *testing.T) {
	b, err := backoff.NewBudget(0.1, 10)
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted := 0
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				b.OnRequest()
				if b.TryRetry() {
					mu.Lock()
					granted++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	// 8000 requests at 0.1 each deposit 800 tokens, plus the 10 it started with.
	assert.LessOrEqual(t, granted, 810)
	assert.GreaterOrEqual(t, granted, 800)
}

func TestNewBudgetRejectsBadValues(t *testing.T) {
	for _, c := range []struct{ ratio, max float64 }{
		{0, 10}, {-1, 10}, {math.NaN(), 10}, {math.Inf(1), 10}, {0.1, 0}, {0.1, math.NaN()}, {0.1, math.Inf(1)}, {0.1, 1e12},
	} {
		_, err := backoff.NewBudget(c.ratio, c.max)
		assert.Error(t, err, "%v", c)
	}
}
