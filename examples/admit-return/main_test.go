package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// 150 clients at 50 a second: every one back, no second past the plan,
// some sent to their slots.
func TestTimeline(t *testing.T) {
	late := testkit.MeasureLateness(t)
	var out, errs bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"-n", "150", "-rate", "50"}, &out, &errs), errs.String())
	text := out.String()
	assert.Contains(t, text, "all 150 back in")
	assert.Contains(t, text, "sent to their slots with a 503")
	lines := strings.Split(text, "\n")
	// The timeline's seconds start at the first arrival as its handler
	// recorded it; a loaded machine records that late by about the worst
	// lateness seen, which moves rate x that much of second 1 into second 0.
	most := 50 + 1 + int(math.Ceil(50*late.Bound(0, 0, 2).Seconds()))
	var taken int
	for _, l := range lines {
		var sec, k, plan, refused int
		if n, _ := fmt.Sscan(l, &sec, &k, &plan, &refused); n == 4 {
			assert.LessOrEqual(t, k, most, "second %d: at most the rate (and one across the second's edge, and what lateness moved)", sec)
			taken += k
		}
	}
	assert.Equal(t, 150, taken)
}

func TestBadFlags(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"-rate", "0"}, &out, &errs))
	assert.Contains(t, errs.String(), "admit: Rate 0")
	assert.Equal(t, 2, run(context.Background(), []string{"-n", "0"}, &out, &errs))
}
