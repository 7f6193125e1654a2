package main

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

var rollingLine = regexp.MustCompile(`restart (\d): longest gap (\S+),`)

// rollingSection runs the rolling-restart test three times and writes the
// longest message gap of each restart.
func rollingSection(b *strings.Builder) error {
	fmt.Fprintf(b, "## A rolling restart of three WebSocket replicas\n\n")
	fmt.Fprintf(b, "`go test -run TestRollingRestartOfThreeReplicas -v ./adapters/websocket` %s, three runs: three replicas on loopback of a feed that sends a message every 10 ms, killed (no close frame) and kept down 5 s one after the other, under a client with the three as Replicas and the default delays (FailoverSpread 500 ms). The client is on each replica as it goes down, so each restart is a loss. The test fails if a gap exceeds FailoverSpread + 500 ms or the supervisor ever Failed.\n\n", where(rootDir))
	out, err := goCmd(rootDir, "test", "-count=3", "-run", "TestRollingRestartOfThreeReplicas", "-v", "./adapters/websocket/")
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "| run | restart 1 | restart 2 | restart 3 |\n|---|---|---|---|\n")
	var longest time.Duration
	run := 0
	for _, m := range rollingLine.FindAllStringSubmatch(out, -1) {
		if m[1] == "0" {
			run++
			fmt.Fprintf(b, "| %d |", run)
		}
		d, err := time.ParseDuration(m[2])
		if err != nil {
			return err
		}
		longest = max(longest, d)
		fmt.Fprintf(b, " %v |", d)
		if m[1] == "2" {
			fmt.Fprintln(b)
		}
	}
	if run != 3 {
		return fmt.Errorf("rolling: %d runs in the output, want 3:\n%s", run, out)
	}
	fmt.Fprintf(b, "\nLongest gap %v, within one failover (rand[0, 500 ms) and a handshake); Failed: 0 in every run (the test's assertions held).\n\n", longest)
	return nil
}
