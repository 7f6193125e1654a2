package main

import (
	"math/rand/v2"
	"time"
)

// grpcClient is a reference model, not redial code: gRPC's connection
// backoff (doc/connection-backoff.md, as grpc-go implements it): retry at
// once, then base 1s times 1.6 per retry, capped at 120s, each delay
// randomized by ±20%.
type grpcClient struct {
	rng     *rand.Rand
	retries int
}

const (
	grpcBase       = time.Second
	grpcMultiplier = 1.6
	grpcJitter     = 0.2
	grpcMax        = 120 * time.Second
)

func (c *grpcClient) first() time.Duration { return 0 }

func (c *grpcClient) failed(error, time.Duration) time.Duration {
	backoff := float64(grpcBase)
	for i := 0; i < c.retries && backoff < float64(grpcMax); i++ {
		backoff *= grpcMultiplier
	}
	c.retries++
	backoff = min(backoff, float64(grpcMax))
	backoff *= 1 + grpcJitter*(c.rng.Float64()*2-1)
	return time.Duration(backoff)
}

func grpcClients(s scenario) []client {
	out := make([]client, s.N)
	for i := range out {
		out[i] = &grpcClient{rng: rand.New(rand.NewPCG(s.Seed, uint64(i)+1))}
	}
	return out
}
