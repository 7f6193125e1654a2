package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// overloadScenarios are the long overloads: a backlog N/K of 1,000 s,
// longer than MaxHint's 5 minutes, after the default 30 s outage.
var overloadScenarios = []struct{ n, rate int }{{10000, 10}, {1000000, 1000}}

// overloadSection runs herd with a backlog longer than MaxHint and holds
// every row to the horizon and the hint rows to the plain policy's finish.
func overloadSection(b *strings.Builder) error {
	fmt.Fprintf(b, "### Long overload: a backlog longer than MaxHint\n\n")
	fmt.Fprintf(b, "The server is down 30 s and then takes K a second for N clients: a backlog N/K of 1,000 s, longer than MaxHint's 5 minutes, so a hint that reserves a slot further away than that is clamped and the client comes back early. ")
	fmt.Fprintf(b, "The hints row's model server keeps an early client's place and tells it the rest of the wait, as a waiting room that knows its clients does; it used to free the slot and send the client to the back of the line, and the hint rows never finished within the horizon (examples/herd `TestHintsLongerThanMaxHintFinish`). ")
	fmt.Fprintf(b, "The planned row's server, package admit's Planner, knows no client: it plans no slot past its Horizon (MaxHint's 5 minutes) and tells a client it cannot place to come back then, so nobody comes early. ")
	fmt.Fprintf(b, "Targets: every row back within the horizon; with hints longer than MaxHint the hint rows within 1.1x of the plain policy's finish.\n\n")
	return withHerdBinary(func(bin string) error {
		for _, sc := range overloadScenarios {
			args := []string{"-n", fmt.Sprint(sc.n), "-rate", fmt.Sprint(sc.rate)}
			start := time.Now()
			h, err := herdBinJSON(bin, args...)
			if err != nil {
				return err
			}
			overloadTable(b, h, strings.Join(args, " "), time.Since(start))
		}
		return nil
	})
}

// overloadTable writes one long overload's rows and its two targets.
func overloadTable(b *strings.Builder, h herdRun, args string, wall time.Duration) {
	fmt.Fprintf(b, "`./herd %s -json` (%.0f s of wall time): N = %d, K = %d/s, ideal finish %.0f s, horizon %.0f h.\n\n", args, wall.Seconds(), h.N, h.Rate, h.IdealS, h.HorizonS/3600)
	fmt.Fprintf(b, "| strategy | attempts | failed | early (told the rest of the wait) | last back | /ideal | /redial policy |\n|---|---|---|---|---|---|---|\n")
	plain, _ := h.row("redial policy")
	var left []string
	for _, r := range h.Rows {
		last, ratio, vsPlain := "never", "-", "-"
		if r.Left == 0 {
			last, ratio = fmt.Sprintf("%.1f s", r.LastBack), fmt.Sprintf("%.2f", r.Finish)
			if plain.LastBack > 0 {
				vsPlain = fmt.Sprintf("%.2fx", r.LastBack/plain.LastBack)
			}
		} else {
			left = append(left, fmt.Sprintf("%s (%d left)", r.Name, r.Left))
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %s | %s | %s |\n", r.Name, r.Attempts, r.Failed, r.Early, last, ratio, vsPlain)
	}
	fmt.Fprintln(b)
	if len(left) == 0 {
		fmt.Fprintf(b, "- Target, every row back within the horizon: met.\n")
	} else {
		fmt.Fprintf(b, "- Target, every row back within the horizon: %s: %s.", verdict(false), strings.Join(left, ", "))
		if nj, ok := h.row("no jitter"); ok && nj.Left > 0 {
			fmt.Fprintf(b, " No jitter cannot: its N clients retry in one instant every Cap (1 minute), and the server lets K of each wave in, so the last is back after N/K waves, %.1f h.", float64(h.N)/float64(h.Rate)/60)
		}
		fmt.Fprintln(b)
	}
	worst, ok := 0.0, plain.Left == 0
	var figs []string
	for _, name := range []string{"redial + hints", "redial + planned hints"} {
		r, _ := h.row(name)
		if r.Left > 0 || plain.Left > 0 {
			ok = false
			figs = append(figs, name+" never")
			continue
		}
		worst = max(worst, r.LastBack/plain.LastBack)
		figs = append(figs, fmt.Sprintf("%s %.2fx", name, r.LastBack/plain.LastBack))
	}
	fmt.Fprintf(b, "- Target, the hint rows within 1.1x of the plain policy's finish (%.1f s): %s (%s).\n\n", plain.LastBack, verdict(ok && worst <= 1.1), strings.Join(figs, ", "))
	fmt.Fprintf(os.Stderr, "herd %s: done in %v\n", args, wall.Round(time.Second))
}
