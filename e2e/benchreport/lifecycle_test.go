package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ev is a `go test -json` output event of a line test logged in pkg.
func ev(pkg, test, line string) string {
	return `{"Action":"output","Package":"github.com/redial-go/redial/` + pkg + `","Test":"` + test + `","Output":"    x_test.go:7: ` + line + `\n"}`
}

// drainOut is `go test -json` output of the drain tests, one run, as they
// log (from a real run) and with a line of no interest between.
var drainOut = strings.Join([]string{
	`{"Action":"start","Package":"github.com/redial-go/redial/adapters/websocket"}`,
	`{"Action":"output","Package":"github.com/redial-go/redial/adapters/websocket","Test":"TestDrainSaysGoingAway","Output":"=== RUN   TestDrainSaysGoingAway\n"}`,
	`{"Action":"output","Package":"github.com/redial-go/redial/adapters/websocket","Test":"TestDrainSaysGoingAway","Output":"    drain.go:76: drain: readiness 503 at once; the Do under way released 206ms after the drain began; Stopped 8.179ms after it was released (214ms in all)\n"}`,
	`{"Action":"output","Package":"github.com/redial-go/redial/adapters/gorilla","Test":"TestDrainSaysGoingAway/gorilla_server","Output":"    drain.go:76: drain: readiness 503 at once; the Do under way released 203ms after the drain began; Stopped 4.781ms after it was released (208ms in all)\n"}`,
	`{"Action":"output","Package":"github.com/redial-go/redial/adapters/gorilla","Test":"TestDrainSaysGoingAway/coder_server","Output":"    drain.go:76: drain: readiness 503 at once; the Do under way released 202ms after the drain began; Stopped 2.059ms after it was released (204ms in all)\n"}`,
	`{"Action":"output","Package":"github.com/redial-go/redial/adapters/postgres","Test":"TestConnDrainLetsTheQueryFinishAndSaysTerminate","Output":"    drain_test.go:167: conn drain: Stopped 483µs after the query under way returned\n"}`,
	`{"Action":"output","Package":"github.com/redial-go/redial/adapters/postgres","Test":"TestPoolDrainLetsTheQueryFinishAndSaysTerminate","Output":"    drain_test.go:202: pool drain: closed 966µs after the query under way returned (2 connections said Terminate)\n"}`,
	`{"Action":"output","Package":"github.com/redial-go/redial/adapters/amqp","Test":"TestDrainCancelsTheConsumerAndLosesNothing","Output":"    drain_test.go:74: drain: 8 deliveries yielded and acked after it began; Stopped 9ms after it began\n"}`,
	`{"Action":"output","Package":"github.com/redial-go/redial/adapters/amqp","Test":"TestDrainCancelsTheConsumerAndLosesNothing","Output":"    drain_test.go:98: drain: 40 of 40 messages acked or requeued, 13 acked (prefetch 8)\n"}`,
	`{"Action":"pass","Package":"github.com/redial-go/redial/adapters/amqp","Test":"TestDrainCancelsTheConsumerAndLosesNothing"}`,
}, "\n")

// The drain tests' lines make the table: the figure of each adapter, a
// span over two runs (gorilla's two servers), Terminate's connections.
func TestLifecycleDrainTable(t *testing.T) {
	d, err := drainFigures(testLogs(drainOut))
	require.NoError(t, err)
	assert.Equal(t, 1, d.runs)
	var b strings.Builder
	drainTable(&b, d, "5.93")
	out := b.String()
	assert.Contains(t, out, "| websocket (coder) | a Do writing a message, released 206 ms after the drain began | 8.2 ms | the message, then close 1001 |\n")
	assert.Contains(t, out, "| gorilla (gorilla and coder servers) | the same | 3.4 ms (2.1-4.8) |")
	assert.Contains(t, out, "| amqp | a Deliveries loop, 8 deliveries in its prefetch (8 yielded and acked after the drain began) | 9 ms after the drain began | consumer count 0 while the connection is open; 40 of 40 messages acked or requeued |\n")
	assert.Contains(t, out, "| postgres Conn, Pool (2 connections) | `select pg_sleep(0.3)` | 0.7 ms (0.5-1.0) |")
	assert.Contains(t, out, "1 runs, the 1-minute load average 5.93 when they began;")

	// A second run: spans, and the fewest messages kept of any run.
	more := drainOut + "\n" + strings.Join([]string{
		ev("adapters/websocket", "TestDrainSaysGoingAway", "drain: readiness 503 at once; the Do under way released 230ms after the drain began; Stopped 12.5ms after it was released (242ms in all)"),
		ev("adapters/gorilla", "TestDrainSaysGoingAway/gorilla_server", "drain: readiness 503 at once; the Do under way released 201ms after the drain began; Stopped 1.6ms after it was released (203ms in all)"),
		ev("adapters/gorilla", "TestDrainSaysGoingAway/coder_server", "drain: readiness 503 at once; the Do under way released 201ms after the drain began; Stopped 1.9ms after it was released (203ms in all)"),
		ev("adapters/postgres", "TestConnDrainLetsTheQueryFinishAndSaysTerminate", "conn drain: Stopped 700µs after the query under way returned"),
		ev("adapters/postgres", "TestPoolDrainLetsTheQueryFinishAndSaysTerminate", "pool drain: closed 900µs after the query under way returned (3 connections said Terminate)"),
		ev("adapters/amqp", "TestDrainCancelsTheConsumerAndLosesNothing", "drain: 7 deliveries yielded and acked after it began; Stopped 21ms after it began"),
		ev("adapters/amqp", "TestDrainCancelsTheConsumerAndLosesNothing", "drain: 39 of 40 messages acked or requeued, 12 acked (prefetch 8)"),
	}, "\n")
	d, err = drainFigures(testLogs(more))
	require.NoError(t, err)
	b.Reset()
	drainTable(&b, d, "5.93")
	out = b.String()
	assert.Contains(t, out, "released 218 ms (206-230) after the drain began | 10 ms (8.2-12) |")
	assert.Contains(t, out, "| the same | 2.0 ms (1.6-4.8) |")
	assert.Contains(t, out, "8 deliveries in its prefetch (7-8 yielded and acked after the drain began) | 15 ms (9-21) after the drain began | consumer count 0 while the connection is open; 39 of 40 messages")
	assert.Contains(t, out, "| postgres Conn, Pool (2-3 connections) | `select pg_sleep(0.3)` | 0.8 ms (0.5-1.0) |")
}

// A run that lacks a figure (gorilla's coder server here) is an error, not
// a table with a hole.
func TestLifecycleDrainMissingFigure(t *testing.T) {
	var lines []string
	for _, l := range strings.Split(drainOut, "\n") {
		if !strings.Contains(l, "coder_server") {
			lines = append(lines, l)
		}
	}
	_, err := drainFigures(testLogs(strings.Join(lines, "\n")))
	assert.ErrorContains(t, err, "1 figures of gorilla (two servers), want 2")
	_, err = drainFigures(nil)
	assert.Error(t, err)
}

// The sweep's lines, as TestMaxConnectionAgeJitterSweep logs them, and
// the fleet test's line make the jitter table and its text.
func TestLifecycleSweepTable(t *testing.T) {
	var lines []string
	for _, l := range []string{
		"age 10s jitter age/10: 12000 replacements, mean 108.11/s, busiest second 1000 (9.25x)",
		"age 10s jitter age/4: 13188 replacements, mean 116.71/s, busiest second 403 (3.45x)",
		"age 10s jitter age/3: 13929 replacements, mean 122.18/s, busiest second 316 (2.59x)",
		"age 10s jitter age/2: 15556 replacements, mean 135.27/s, busiest second 226 (1.67x)",
		"age 1m0s jitter age/10: 12000 replacements, mean 18.02/s, busiest second 178 (9.88x)",
		"age 1m0s jitter age/4: 13186 replacements, mean 19.53/s, busiest second 81 (4.15x)",
		"age 1m0s jitter age/3: 13895 replacements, mean 20.43/s, busiest second 61 (2.99x)",
	} {
		lines = append(lines, ev("e2e/benchreport", "TestMaxConnectionAgeJitterSweep/x", l))
	}
	_, err := sweepFigures(testLogs(strings.Join(lines, "\n")))
	assert.ErrorContains(t, err, "no age 1m0s jitter age/2", "a missing cell")
	lines = append(lines, ev("e2e/benchreport", "TestMaxConnectionAgeJitterSweep/1m0s/2", "age 1m0s jitter age/2: 15508 replacements, mean 22.48/s, busiest second 44 (1.96x)"))
	cells, err := sweepFigures(testLogs(strings.Join(lines, "\n")))
	require.NoError(t, err)
	fleet := matches(testLogs(ev("supervisor", "TestMaxConnectionAgeSpreadsAFleet", "17384 replacements in 1m55s: mean 151/s, busiest second 232 (1.54x)")), "supervisor", "TestMaxConnectionAgeSpreadsAFleet", fleetLine)
	require.Len(t, fleet, 1)
	var b strings.Builder
	sweepTable(&b, cells, fleet[0])
	out := b.String()
	assert.Contains(t, out, "| age/10 (gRPC's ±10 % is of this order) | 108/s, 1000 (9.25x) | 18/s, 178 (9.88x) |\n")
	assert.Contains(t, out, "| age/4 | 117/s, 403 (3.45x) | 19.5/s, 81 (4.15x) |\n")
	assert.Contains(t, out, "| age/2 (default) | 135/s, 226 (1.67x) | 22.5/s, 44 (1.96x) |\n")
	assert.Contains(t, out, "1,000 supervisors of an in-memory connector")
	assert.Contains(t, out, "200 at 10 s ages and 33 at 1 minute, give or take its square root (±14, 7%; ±5.8, 17%), and the busiest of many seconds lies a few of those above: the default row's 1.67x and 1.96x")
	assert.Contains(t, out, "in this run mean 151/s, busiest second 232 (1.54x)")
}

// The feeds' lines make the paragraph; a feed that did not log is an
// error.
func TestLifecycleFeedText(t *testing.T) {
	out := strings.Join([]string{
		ev("adapters/websocket", "TestMaxConnectionAgeFeedLosesNothing", "4455 messages, 14 connections, 13 switches, 39 replayed twice, 0 lost"),
		ev("adapters/websocket", "TestMaxConnectionAgeFeedTwoMinutes", "98573 messages, 17 connections, 16 switches, 19 replayed twice, 0 lost"),
		ev("adapters/sse", "TestReplaceResumesWithOneSwitchSignal", "300 events once each, in order; 2 switches over 3 connections"),
	}, "\n")
	f, err := feedFigures(testLogs(out))
	require.NoError(t, err)
	var b strings.Builder
	feedText(&b, f)
	assert.Contains(t, b.String(), "for 5 s, 4,455 messages over 14 connections, 13 ErrSwitched signals (one per replacement), 39 messages carried by both the old and the new connection, 0 lost")
	assert.Contains(t, b.String(), "for 2 minutes (`TestMaxConnectionAgeFeedTwoMinutes`, which runs with REDIAL_LONG=1): 98,573 messages over 17 connections, 16 ErrSwitched signals, 19 messages carried twice, 0 lost.")
	assert.Contains(t, b.String(), "300 events, each once and in order, 2 ErrSwitched signals over 3 connections")
	_, err = feedFigures(testLogs(strings.Join(strings.Split(out, "\n")[:2], "\n")))
	assert.ErrorContains(t, err, "TestReplaceResumesWithOneSwitchSignal logged 0 figures")
}

// A command is written as a shell takes it: -run's pattern quoted.
func TestLifecycleCommand(t *testing.T) {
	assert.Equal(t, "REDIAL_LONG=1 go test -count=1 -json -run 'TestMaxConnectionAgeFeed|TestReplaceResumesWithOneSwitchSignal' ./adapters/websocket/ ./adapters/sse/", command(feedEnv, feedArgs))
	assert.Equal(t, "go test -count=1 -json -run 'TestMaxConnectionAgeSpreadsAFleet$' ./supervisor/", command(nil, fleetArgs))
}

func TestThousands(t *testing.T) {
	assert.Equal(t, "0", thousands(0))
	assert.Equal(t, "999", thousands(999))
	assert.Equal(t, "98,573", thousands(98573))
	assert.Equal(t, "1,000,000", thousands(1000000))
}
