package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEjectionSavesAttemptsOnASickReplica: the sweep scaled down 10x: with
// frequent losses and a replica that hangs, the default ejection makes
// fewer attempts on it and brings clients back sooner than none, ejects no
// overloaded survivor, and the healed replica fills again.
func TestEjectionSavesAttemptsOnASickReplica(t *testing.T) {
	s := ejectScenario{N: 1000, Rate: 100, Base: time.Second, Cap: time.Minute, Life: 10 * time.Second,
		Bad: time.Minute, Sick: 5 * time.Minute, Until: 15 * time.Minute, DeadTimeout: 10 * time.Second, Seed: 3, Window: 100 * time.Millisecond}
	rs, err := simulateEject(s)
	require.NoError(t, err)
	by := map[string]ejectResult{}
	for _, r := range rs {
		by[r.Name] = r
	}
	off, d := by["no ejection"], by["after 3, base 10s, cap 1m0s (default)"]
	require.NotZero(t, off.Wasted)
	assert.Less(t, d.Wasted, off.Wasted*8/10)
	assert.Less(t, d.GapMean, off.GapMean)
	assert.Zero(t, d.SurvivEj)
	assert.Greater(t, by["after 1, base 10s, cap 1m0s"].SurvivEj, 0, "a threshold of 1 ejects overloaded survivors")
	assert.GreaterOrEqual(t, d.RebalanceS, 0.0)
	assert.Less(t, d.RebalanceS, 2*time.Minute.Seconds(), "bounded by the cap")
}
