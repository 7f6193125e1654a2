package main

import (
	"math/rand/v2"
	"time"
)

// cenkaltiClient is a reference model, not that library's code (the
// library module does not depend on it; e2e's storm runs the
// real one): github.com/cenkalti/backoff/v5's Retry with its defaults,
// an ExponentialBackOff from 500 ms, x1.5 per retry, each delay randomized
// by ±50 %, the interval capped at 60 s (the delay at 90 s). Retry makes
// the first attempt at once.
type cenkaltiClient struct {
	rng      *rand.Rand
	interval time.Duration
}

const (
	cenkaltiInitial    = 500 * time.Millisecond
	cenkaltiFactor     = 0.5
	cenkaltiMultiplier = 1.5
	cenkaltiMax        = 60 * time.Second
)

func (c *cenkaltiClient) first() time.Duration {
	c.interval = cenkaltiInitial
	return 0
}

// failed is NextBackOff: a value from [interval*(1-f), interval*(1+f)],
// then the interval grows.
func (c *cenkaltiClient) failed(error, time.Duration) time.Duration {
	delta := cenkaltiFactor * float64(c.interval)
	lo, hi := float64(c.interval)-delta, float64(c.interval)+delta
	next := time.Duration(lo + c.rng.Float64()*(hi-lo+1))
	if float64(c.interval) >= float64(cenkaltiMax)/cenkaltiMultiplier {
		c.interval = cenkaltiMax
	} else {
		c.interval = time.Duration(float64(c.interval) * cenkaltiMultiplier)
	}
	return next
}

func cenkaltiClients(s scenario) []client {
	out := make([]client, s.N)
	for i := range out {
		out[i] = &cenkaltiClient{rng: rand.New(rand.NewPCG(s.Seed, uint64(i)+3))}
	}
	return out
}
