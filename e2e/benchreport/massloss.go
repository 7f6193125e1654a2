package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// lossProfile is where BenchmarkMassLoss writes the CPU profile of its
// last run's loss.
var lossProfile = filepath.Join(os.TempDir(), "redial-massloss.pprof")

var massLossBench = bench{e2eDir, "./storm", "BenchmarkMassLoss", []string{"-benchtime", "1x", "-count", "3", "-storm.lossprofile", lossProfile}}

// focusShare matches pprof's line saying what share of the profile the
// focused functions' stacks take.
var focusShare = regexp.MustCompile(`accounting for [^,]+, ([0-9.]+)% of`)

// massLossSection reports the CPU 10,000 supervisors spend on one mass
// loss, and the share redaction takes of it.
func massLossSection(b *strings.Builder) error {
	out, err := massLossBench.run()
	if err != nil {
		return err
	}
	ss := parse(out)
	us, n := median(ss, "BenchmarkMassLoss", "cpu-us/supervisor")
	top, err := goCmd(e2eDir, "tool", "pprof", "-top", "-focus", "internal/redact", lossProfile)
	if err != nil {
		return err
	}
	m := focusShare.FindStringSubmatch(top)
	if m == nil {
		return fmt.Errorf("pprof -focus: no share in %q", top)
	}
	share, _ := strconv.ParseFloat(m[1], 64)
	fmt.Fprintf(b, "## A mass loss\n\n")
	fmt.Fprintf(b, "%s: 10,000 `websocket.New` supervisors with their defaults, each read by a `Messages` loop, hold connections to a server in another process, which exits; the figure is the CPU this process spends from then until every supervisor has failed its first retry, per supervisor, median of %d runs. Redaction's share is the part of the last run's CPU profile whose stacks pass through `internal/redact` (`go tool pprof -top -focus internal/redact`).\n\n", massLossBench, n)
	fmt.Fprintf(b, "| measure | figure | target |\n|---|---|---|\n")
	fmt.Fprintf(b, "| CPU per supervisor for one loss | %.0f µs | |\n", us)
	fmt.Fprintf(b, "| redaction's share of it | %.1f %% | <= 5 %%: %s |\n\n", share, verdict(share <= 5))
	fmt.Fprintf(b, "Redaction scans bytes for the supervisor's secret set (no regular expression on a per-error path); it took a third of about a second of CPU for 10,000 supervisors when it used regular expressions.\n\n")
	return nil
}
