package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// anchors are the simulator's rows that redial's policy is held against.
var anchors = []string{"no jitter", "full jitter", "equal jitter", "decorrelated", "cenkalti v5", "gRPC (1.6x, ±20%)"}

// herdSection runs the simulator: the default scenario (the table the
// README shows, and the plot), the policy against the anchors at both
// outages, and a million clients. herd prints figures only: the targets
// and their verdicts are written here.
func herdSection(b *strings.Builder) error {
	svg := "docs/herd.svg"
	if dryRun {
		dir, err := os.MkdirTemp("", "herd")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		svg = filepath.Join(dir, "herd.svg")
	} else if err := os.MkdirAll(filepath.Join(rootDir, "docs"), 0o755); err != nil {
		return err
	}
	out, err := goCmd(herdDir, "run", herdPkg, "-svg", svg)
	if err != nil {
		return err
	}
	table := strings.ReplaceAll(out, "plot written to "+svg+"\n", "")
	fmt.Fprintf(b, "## The thundering herd\n\n`go run %s -svg docs/herd.svg` %s (virtual time; see examples/herd/README.md for the model and the rows):\n\n", herdPkg, where(herdDir))
	fmt.Fprintf(b, "```\n%s```\n\n", table)
	if err := herdTargets(b); err != nil {
		return err
	}
	fmt.Fprintf(b, "![attempts per 100 ms window](docs/herd.svg)\n\n")
	short, err := goCmd(herdDir, "run", herdPkg, "-down", "500ms")
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "The same at a 500 ms outage, `go run %s -down 500ms`:\n\n```\n%s```\n\n", herdPkg, short)
	if err := herdTargets(b, "-down", "500ms"); err != nil {
		return err
	}
	if err := policySection(b); err != nil {
		return err
	}
	if err := millionSection(b); err != nil {
		return err
	}
	if dryRun {
		return nil
	}
	return replaceBetween(filepath.Join(rootDir, "README.md"), "<!-- herd:begin", "<!-- herd:end -->", "```\n"+table+"```\n")
}

// herdTargets writes the simulator's targets for the scenario of args
// (herd -json args), each met or missed with its figures.
func herdTargets(b *strings.Builder, args ...string) error {
	h, err := herdJSON(args...)
	if err == nil {
		writeTargets(b, h)
	}
	return err
}

// writeTargets writes h's targets as a list.
func writeTargets(b *strings.Builder, h herdRun) {
	for _, t := range herdTargetLines(h) {
		fmt.Fprintf(b, "- %s\n", t)
	}
	fmt.Fprintln(b)
}

// herdTargetLines are the earlier issues' targets for one herd run: the
// policy's peak against no jitter's, the overload once the server is up,
// and with hints a finish near the ideal.
func herdTargetLines(h herdRun) []string {
	capacity := float64(h.Rate) / 10
	nj, _ := h.row("no jitter")
	rp, _ := h.row("redial policy")
	out := []string{
		fmt.Sprintf("Target, redial policy's peak at most 1/10 of no jitter's: %s (%d against %d, %.3fx).", verdict(rp.Peak*10 <= nj.Peak), rp.Peak, nj.Peak, float64(rp.Peak)/float64(nj.Peak)),
		fmt.Sprintf("Target, redial policy once the server is up at most 2x capacity per window: %s (%.2fx).", verdict(float64(rp.PeakUp) <= 2*capacity), rp.PeakUpCap),
	}
	for _, name := range []string{"redial + hints", "redial + planned hints"} {
		r, _ := h.row(name)
		finish := "never"
		if r.Left == 0 {
			finish = fmt.Sprintf("%.2fx", r.Finish)
		}
		out = append(out,
			fmt.Sprintf("Target, %s: last client back within 1.2x the ideal (%.1f s): %s (%s).", name, h.IdealS, verdict(r.Left == 0 && r.Finish <= 1.2), finish),
			upTarget(name, r, capacity))
	}
	return out
}

// upTarget is the overload target once the server is up: attempts per
// window, but for the planned row the connections taken (package admit's
// Planner cannot answer while the server is away, so the first attempts
// after the outage are the backoff's).
func upTarget(name string, r herdRow, capacity float64) string {
	if name == "redial + planned hints" {
		return fmt.Sprintf("Target, %s: once the server is up at most 1.2x capacity per window taken: %s (%.2fx).", name, verdict(float64(r.PeakAdmits) <= 1.2*capacity), float64(r.PeakAdmits)/capacity)
	}
	return fmt.Sprintf("Target, %s: once the server is up at most 1.2x capacity per window: %s (%.2fx).", name, verdict(float64(r.PeakUp) <= 1.2*capacity), r.PeakUpCap)
}

// policySection holds redial's policy against every anchor on the two
// figures that matter once the server is back: the overload (the busiest
// window over capacity) and the time until the last client is back.
func policySection(b *strings.Builder) error {
	fmt.Fprintf(b, "### redial's policy against the anchors\n\n")
	fmt.Fprintf(b, "N = 10,000, K = 1,000/s, seeds 1 to 5 (`-json`), at both outages. An anchor is better when it has both less overload after recovery and an earlier last client; target: no anchor is, in either regime.\n\n")
	fmt.Fprintf(b, "| outage | seed | redial policy: overload, last back | anchors better on both |\n|---|---|---|---|\n")
	met := true
	first := map[string]herdRun{} // seed 1 of each outage, for the text
	for _, down := range []string{"30s", "500ms"} {
		for seed := 1; seed <= 5; seed++ {
			h, err := herdJSON("-down", down, "-seed", fmt.Sprint(seed))
			if err != nil {
				return err
			}
			if seed == 1 {
				first[down] = h
			}
			rp, _ := h.row("redial policy")
			var better []string
			for _, a := range anchors {
				ar, ok := h.row(a)
				if ok && ar.PeakUpCap < rp.PeakUpCap && ar.LastBack >= 0 && ar.LastBack < rp.LastBack {
					better = append(better, fmt.Sprintf("%s (%.2fx, %.1f s)", a, ar.PeakUpCap, ar.LastBack))
				}
			}
			met = met && len(better) == 0
			list := "none"
			if len(better) > 0 {
				list = strings.Join(better, ", ")
			}
			fmt.Fprintf(b, "| %s | %d | %.2fx, %.1f s | %s |\n", down, seed, rp.PeakUpCap, rp.LastBack, list)
		}
	}
	fmt.Fprintf(b, "\nTarget, no anchor better on both in either regime: %s.\n\n", verdict(met))
	long, short := first["30s"], first["500ms"]
	rp, _ := long.row("redial policy")
	eq, _ := long.row("equal jitter")
	ck, _ := long.row("cenkalti v5")
	dc, _ := long.row("decorrelated")
	rs, _ := short.row("redial policy")
	before, err := herdJSON("-age-bound", "-1")
	if err != nil {
		return err
	}
	beforeShort, err := herdJSON("-age-bound", "-1", "-down", "500ms")
	if err != nil {
		return err
	}
	bp, _ := before.row("redial policy")
	bs, _ := beforeShort.row("redial policy")
	fmt.Fprintf(b, "Why equal jitter beat redial's policy after a 30 s outage, and what changed (seed 1; the policy before this change is `-age-bound -1`: %.2fx and %.1f s at 30 s, %.2fx and %.1f s at 500 ms):\n\n", bp.PeakUpCap, bp.LastBack, bs.PeakUpCap, bs.LastBack)
	fmt.Fprintf(b, "- The finish. Decorrelated jitter draws each wait from [Base, 3 x the last wait], up to Cap, so a client can commit, a moment before the server returns, to three times its last wait: with waits near 20 s by then some draw 60 s, and the last client came back about Cap after the server (%.1f s; the plain decorrelated loop %.1f s). Equal jitter's waits are confined to [v/2, v] with v doubling, so the wave that meets the server ends at %.1f s; cenkalti/backoff's (x1.5, ±50 %%) at %.1f s. ", bp.LastBack, dc.LastBack, eq.LastBack, ck.LastBack)
	fmt.Fprintf(b, "The policy now bounds every decorrelated wait of an outage but the first by half the outage so far (Base at least; internal/policy `Config.AgeBound`, `TestDecorrelatedWaitsAreBoundedByTheOutagesAge`), so every client's first attempt after the server is back comes within 1.5 times the outage or 4 Base, whichever is longer (`TestOutageBoundAfterAStableLoss`; a flap does not end an outage, `TestOutageBoundAfterAFlappingLoss`): %.1f s for 30 s. Cap still bounds outages longer than it; the strategy, Base and Cap are DESIGN's. ", rp.LastBack)
	fmt.Fprintf(b, "The first wait keeps its whole draw, so that a fleet that failed at one instant stays spread out (`TestTheFirstWaitOfAnOutageIsNotBounded`).\n")
	fmt.Fprintf(b, "- The overload. Every decorrelated draw can fall back to Base, so a share of the clients always waits little, and the attempts during the outage run near N over the mean wait, which is what the server sees the moment it returns: %.2fx capacity before, %.2fx now (a tighter bound means more attempts), where equal jitter's waves leave the server nearly idle when it returns (%.2fx) and cenkalti's arrive spread out (%.2fx). ", bp.PeakUpCap, rp.PeakUpCap, eq.PeakUpCap, ck.PeakUpCap)
	fmt.Fprintf(b, "No rule on top of decorrelated draws lowers that rate without lengthening the waits, and so the finish: under DESIGN's rules the policy cannot also have their overload, so it is made to win the finish by a margin (%.1f s against %.1f s and %.1f s) and leaves them the overload; neither is then better on both.\n", rp.LastBack, ck.LastBack, eq.LastBack)
	fmt.Fprintf(b, "- After a 500 ms outage the bound brings the last client back at %.1f s (%.1f s before) at the same overload, %.1fx, which the first retry's spread over rand[0, Base) sets: 10,000 clients in one second against 1,000 a second.\n\n", rs.LastBack, bs.LastBack, rs.PeakUpCap)
	return boundsTable(b)
}

// boundsTable compares the age bound's fractions: what each buys in the
// finish and costs in overload and attempts.
func boundsTable(b *strings.Builder) error {
	fmt.Fprintf(b, "Why half the outage: the fraction trades the finish against attempts and overload (seed 1, `-age-bound F`); the whole outage would finish after cenkalti/backoff's defaults at 30 s, half wins by a margin that no seed takes away, at a fifth more attempts, most of them refused while the server is down.\n\n")
	fmt.Fprintf(b, "| bound (fraction of the outage so far) | 30 s: overload, last back, attempts | 500 ms: overload, last back, attempts |\n|---|---|---|\n")
	for _, f := range []struct{ flag, what string }{{"-1", "none (the policy before)"}, {"1", "1"}, {"0.75", "0.75"}, {"0", "0.5 (the default)"}} {
		cell := func(down string) (string, error) {
			h, err := herdJSON("-age-bound", f.flag, "-down", down)
			if err != nil {
				return "", err
			}
			r, _ := h.row("redial policy")
			return fmt.Sprintf("%.2fx, %.1f s, %d", r.PeakUpCap, r.LastBack, r.Attempts), nil
		}
		long, err := cell("30s")
		if err != nil {
			return err
		}
		short, err := cell("500ms")
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", f.what, long, short)
	}
	fmt.Fprintln(b)
	return nil
}

// millionSection simulates a million clients, internet scale on paper,
// and reports how long the simulation took.
func millionSection(b *strings.Builder) error {
	return withHerdBinary(func(bin string) error {
		args := []string{"-n", "1000000", "-rate", "100000"}
		fmt.Fprintf(os.Stderr, "+ %s %s\n", bin, strings.Join(args, " "))
		start := time.Now()
		out, err := exec.Command(bin, args...).Output()
		wall := time.Since(start)
		if err != nil {
			return fmt.Errorf("herd -n 1000000: %w", err)
		}
		fmt.Fprintf(b, "### A million clients\n\n`go build -o herd ./examples/herd && ./herd -n 1000000 -rate 100000` (the default scenario scaled 100x: the same 30 s outage, capacity 100,000 a second, so the same ideal finish), in %.1f s of wall time on this machine (target: under 10 s: %s). ", wall.Seconds(), verdict(wall < 10*time.Second))
		fmt.Fprintf(b, "Each client's attempts while the server is down are simulated one client after the other, since they depend on no other client; from the server's return on, one event queue of millisecond buckets, and the rows run on every CPU.\n\n```\n%s```\n\n", out)
		h, err := herdBinJSON(bin, args...)
		if err == nil {
			writeTargets(b, h)
		}
		return err
	})
}

// withHerdBinary builds the simulator into a temporary directory and calls
// f with its path (a million clients run faster than under go run).
func withHerdBinary(f func(bin string) error) error {
	dir, err := os.MkdirTemp("", "herd")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "herd")
	if _, err := goCmd(herdDir, "build", "-o", bin, herdPkg); err != nil {
		return err
	}
	return f(bin)
}

// herdBinJSON runs the built simulator with args and -json.
func herdBinJSON(bin string, args ...string) (herdRun, error) {
	var r herdRun
	args = append([]string{"-json"}, args...)
	fmt.Fprintf(os.Stderr, "+ %s %s\n", bin, strings.Join(args, " "))
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		return r, fmt.Errorf("herd %s: %w", strings.Join(args, " "), err)
	}
	return r, json.Unmarshal(out, &r)
}
