package seed_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/internal/seed"
)

func TestPairsDiffer(t *testing.T) {
	seen := map[[2]uint64]bool{}
	for range 1000 {
		a, b := seed.Pair()
		assert.False(t, seen[[2]uint64{a, b}], "a pair came twice")
		seen[[2]uint64{a, b}] = true
	}
}
