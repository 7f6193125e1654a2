package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ejectRow is one row of examples/herd -eject -json.
type ejectRow struct {
	Name       string  `json:"name"`
	After      int     `json:"eject_after"`
	BaseS      float64 `json:"eject_base_s"`
	CapS       float64 `json:"eject_cap_s"`
	Wasted     int     `json:"wasted"`
	GapMean    float64 `json:"gap_mean_s"`
	SurvivEj   int     `json:"survivor_ej"`
	RebalanceS float64 `json:"rebalance_s"`
}

func ejectJSON(bin string, args ...string) (map[string]ejectRow, error) {
	args = append([]string{"-eject", "-json"}, args...)
	fmt.Fprintf(os.Stderr, "+ %s %s\n", bin, strings.Join(args, " "))
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		return nil, fmt.Errorf("herd %s: %w", strings.Join(args, " "), err)
	}
	var rows []ejectRow
	if err := json.Unmarshal(out, &rows); err != nil {
		return nil, err
	}
	by := map[string]ejectRow{}
	for _, r := range rows {
		by[r.Name] = r
	}
	return by, nil
}

// The rows of the sweep that the text compares, by their names in examples/herd.
const (
	ejOff     = "no ejection"
	ejDefault = "after 3, base 10s, cap 1m0s (default)"
	ejAfter1  = "after 1, base 10s, cap 1m0s"
	ejAfter2  = "after 2, base 10s, cap 1m0s"
	ejAfter5  = "after 5, base 10s, cap 1m0s"
	ejBase30  = "after 3, base 30s, cap 1m0s"
	ejBase1m  = "after 3, base 1m0s, cap 1m0s"
	ejCap5m   = "after 3, base 10s, cap 5m0s"
)

// ejectSection is the ejection sweep that chose EjectAfter, EjectBase and
// EjectCap's defaults.
func ejectSection(b *strings.Builder) error {
	fmt.Fprintf(b, "## Ejecting a replica that keeps failing\n\n")
	fmt.Fprintf(b, "`go run %s -eject` %s (virtual time; the code is internal/policy's, as a Supervisor with Endpoints runs it): 10,000 clients over 3 replicas that each accept 1,000 new connections a second (the excess refused without a hint, a failure that counts). Every connection lives an exponential time (`-life`) and is then lost; the client reconnects by the policy. From 1 minute on, replica 0 is sick for `-sick`: its connections break and every attempt on it fails, at once or after `-dead-timeout` (it accepts TCP and never answers). Columns: attempts on the sick replica while it is sick; failed attempts; time from a loss to the next connection while it is sick (mean, p99); replica 0's first connection after it healed; how long after it healed it held 30%% of the clients again (rebalance); ejections of an overloaded survivor. Rows: ejection off, then EjectAfter, EjectBase and EjectCap around the defaults (after 3, base 10 s, cap 1 minute).\n\n", herdPkg, where(herdDir))
	return withHerdBinary(func(bin string) error {
		runs := []struct{ text, args string }{
			{"Connections that live 10 s on average, a replica sick for 5 minutes that hangs every attempt for 10 s:", "-life 10s -sick 5m -dead-timeout 10s"},
			{"The same replica refusing at once:", "-life 10s -sick 5m"},
			{"Sick for 1 minute only, refusing at once (what a long ejection costs once it is healthy):", "-life 10s -sick 1m"},
			{"Connections that live 1 minute on average, sick for 5 minutes, hanging:", "-life 1m -sick 5m -dead-timeout 10s"},
		}
		for _, r := range runs {
			args := append([]string{"-eject"}, strings.Fields(r.args)...)
			fmt.Fprintf(os.Stderr, "+ %s %s\n", bin, strings.Join(args, " "))
			out, err := exec.Command(bin, args...).Output()
			if err != nil {
				return fmt.Errorf("herd %s: %w", strings.Join(args, " "), err)
			}
			fmt.Fprintf(b, "%s\n\n```\n%s```\n\n", r.text, out)
		}
		hang, err := ejectJSON(bin, strings.Fields(runs[0].args)...)
		if err != nil {
			return err
		}
		short, err := ejectJSON(bin, strings.Fields(runs[2].args)...)
		if err != nil {
			return err
		}
		long, err := ejectJSON(bin, strings.Fields(runs[3].args)...)
		if err != nil {
			return err
		}
		spread := 0.0 // the most a row of the 1-minute run differs from no ejection in attempts on the sick replica
		for _, r := range long {
			spread = max(spread, abs(float64(r.Wasted)/float64(long[ejOff].Wasted)-1))
		}
		d, off := hang[ejDefault], hang[ejOff]
		fmt.Fprintf(b, "Ejection pays when a client loses connections often enough to meet the sick replica again while it is ejected, and most when that replica hangs: with 10 s connections and a hanging replica the default setting makes %d attempts on it instead of %d (%.0f%%) and a client is back %.2f s after a loss on average instead of %.2f s; with 1-minute connections a client meets it too rarely to eject it for long, and every row is within %.0f%% of no ejection in attempts on it. ",
			d.Wasted, off.Wasted, 100*float64(d.Wasted)/float64(off.Wasted), d.GapMean, off.GapMean, 100*spread)
		fmt.Fprintf(b, "**EjectAfter 3**: after 1 and 2 overloaded survivors, whose refusals count, are ejected %d and %d times (clients then crowd the third replica); after 3, %d times; after 5 saves %.0f%% less than after 3 does. ",
			hang[ejAfter1].SurvivEj, hang[ejAfter2].SurvivEj, d.SurvivEj, 100*(1-float64(off.Wasted-hang[ejAfter5].Wasted)/float64(off.Wasted-d.Wasted)))
		fmt.Fprintf(b, "**EjectBase 10 s**: a longer base saves more while the replica stays sick (base 30 s: %d attempts, 1 minute: %d) but keeps the healed replica empty longer after a short sickness: 30%% of the clients are back on it %.0f s after a 1-minute sickness at base 10 s, %.0f s at 30 s, %.0f s at 1 minute (%.0f s without ejection). ",
			hang[ejBase30].Wasted, hang[ejBase1m].Wasted, short[ejDefault].RebalanceS, short[ejBase30].RebalanceS, short[ejBase1m].RebalanceS, short[ejOff].RebalanceS)
		fmt.Fprintf(b, "**EjectCap 1 minute**: the cap bounds how long the healed replica stays out after a long sickness (rebalance %.0f s at 1 minute, %.0f s at 5 minutes) and a 5-minute cap saves only %d attempts more.\n\n",
			d.RebalanceS, hang[ejCap5m].RebalanceS, d.Wasted-hang[ejCap5m].Wasted)
		return nil
	})
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
