package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/testing/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestDemoRunsAndLosesNothing runs the demo briefly against its flaky
// server: it must connect, reconnect, print a summary with nothing lost,
// keep the token out of its output, and leave nothing running.
func TestDemoRunsAndLosesNothing(t *testing.T) {
	var out bytes.Buffer
	err := demo(context.Background(), &out, config{Duration: 6 * time.Second, Base: 50 * time.Millisecond, Cap: time.Second, Seed: 11})
	require.NoError(t, err)
	text := out.String()
	assert.Contains(t, text, "CONNECTED (connection #1)")
	assert.Contains(t, text, "readiness: 200")
	assert.NotContains(t, text, "demo-secret", "the feed's token is redacted everywhere")
	m := regexp.MustCompile(`summary: (\d+) connects, \d+ failed attempts, longest outage \S+, (\d+) ticks received in order, (\d+) lost`).FindStringSubmatch(text)
	require.NotNil(t, m, text)
	connects, _ := strconv.Atoi(m[1])
	ticks, _ := strconv.Atoi(m[2])
	assert.GreaterOrEqual(t, connects, 2, "the flaky server drops the first connection within 5s:\n%s", text)
	assert.Greater(t, ticks, 20)
	assert.Equal(t, "0", m[3], "every tick is received: the client resumes from the last one it saw")
}

func TestDemoCtrlCStopsCleanly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel) // as Ctrl-C does
	var out bytes.Buffer
	start := time.Now()
	require.NoError(t, demo(ctx, &out, config{Duration: time.Hour, Base: 50 * time.Millisecond, Cap: time.Second, Seed: 1}))
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Contains(t, out.String(), "summary:")
}

func TestDemoRejectsBadDuration(t *testing.T) {
	assert.Error(t, demo(context.Background(), &bytes.Buffer{}, config{Duration: 0}))
}

// TestExitsWhenTheFeedRefusesForGood points the demo at a feed that
// answers every handshake 401: it exits at once, non-zero, with one line
// that says why; and at a closed port with -max-attempts 3.
func TestExitsWhenTheFeedRefusesForGood(t *testing.T) {
	addr := testkit.Unauthorized(t)
	out := testkit.ExitsForGood(t, run, "401 Unauthorized", "-url", "ws://"+addr+"/ticks?token=demo-secret")
	assert.NotContains(t, out, "next attempt")
	assert.NotContains(t, out, "demo-secret")

	// A closed port: the timeline says each attempt once, with the
	// redacted URL, and the wait before the next; then one line says it
	// gave up.
	addr = testkit.ClosedAddr(t)
	out = testkit.ExitsForGood(t, run, "gave up after 3 attempts", "-url", "ws://"+addr+"/ticks?token=demo-secret", "-max-attempts", "3")
	assert.Equal(t, 3, strings.Count(out, "  connecting to ws://"+addr+"/ticks?token=xxxxx\n"), out)
	retry := regexp.MustCompile(`(?m)^ +\S+s  attempt (\d) failed: .*connection refused\n +-> next attempt in \S+ \(backoff\)$`)
	var attempts []string
	for _, m := range retry.FindAllStringSubmatch(out, -1) {
		attempts = append(attempts, m[1])
	}
	assert.Equal(t, []string{"1", "2"}, attempts, out)
	assert.Equal(t, 2, strings.Count(out, "next attempt in"), out)
	assert.Contains(t, out, "feed:      ws://"+addr+"/ticks?token=xxxxx", "the header names the feed, redacted")
	assert.NotContains(t, out, "demo-secret")
}
