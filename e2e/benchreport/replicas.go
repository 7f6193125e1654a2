package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// replicaRun is examples/herd -replicas R -json.
type replicaRun struct {
	Displaced int     `json:"displaced"`
	IdealS    float64 `json:"ideal_s"`
	Rows      []struct {
		Name     string    `json:"name"`
		PeakCap  []float64 `json:"peaks_cap"`
		Attempts int       `json:"attempts"`
		Failed   int       `json:"failed"`
		LastBack float64   `json:"last_back_s"`
	} `json:"rows"`
}

func replicaJSON(args ...string) (replicaRun, error) {
	var r replicaRun
	out, err := goCmd(herdDir, append([]string{"run", herdPkg, "-replicas", "3", "-json"}, args...)...)
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal([]byte(out), &r)
}

// The rows of the sweep, by their names in examples/herd.
var (
	rowNoFailover = "no failover (list from the top)"
	rowNoSpread   = "failover, no spread"
	rowDefault    = "failover, spread Base/2 (default)"
	sweepRows     = []string{rowNoFailover, rowNoSpread, "failover, spread Base/4", rowDefault, "failover, spread Base"}
)

// replicasSection is the replica scenario: the tables at K = 1,000/s,
// a dead replica that refuses and one whose dials time out, and the sweep
// over K and seeds that chose FailoverSpread's default.
func replicasSection(b *strings.Builder) error {
	fmt.Fprintf(b, "## Failover across replicas\n\n")
	fmt.Fprintf(b, "`go run %s -replicas 3` %s (virtual time; examples/herd/README.md has the model): 10,000 clients spread over 3 replicas that each accept 1,000 new connections a second (100 per 100 ms window, the excess refused without a hint); replica 0 dies at 0 s and its clients look for a survivor. Rows: no failover (one backoff, the host list walked from the top after each wait, as pgx did before redial took the list apart), the supervisor's failover without spread, and its failover over a range of FailoverSpread.\n\n", herdPkg, where(herdDir))
	for _, args := range [][]string{nil, {"-dead-timeout", "10s"}} {
		out, err := goCmd(herdDir, append([]string{"run", herdPkg, "-replicas", "3"}, args...)...)
		if err != nil {
			return err
		}
		if len(args) > 0 {
			fmt.Fprintf(b, "The same with a replica whose host vanished, so that every dial to it times out after ConnectTimeout (`-dead-timeout 10s`):\n\n")
		}
		fmt.Fprintf(b, "```\n%s```\n\n", out)
	}
	fmt.Fprintf(b, "### Choosing FailoverSpread's default\n\n")
	fmt.Fprintf(b, "Median over seeds 1 to 3 of the busiest survivor's peak over its capacity per window, and the seconds until the last displaced client is back, for per-replica capacities K from 500 to 20,000 a second (`-replicas 3 -rate K -seed S -json`):\n\n")
	fmt.Fprintf(b, "| K / s | ideal finish |")
	for _, r := range sweepRows {
		fmt.Fprintf(b, " %s |", r)
	}
	fmt.Fprintf(b, "\n|---|---|%s\n", strings.Repeat("---|", len(sweepRows)))
	type cell struct{ peak, last float64 }
	worstPeakRatio, worstFinish := 0.0, 0.0
	var q4Later, baseLater []string // the Ks where Base/4, Base finish after the default
	q4Peak := 0.0                   // the least ratio of Base/4's peak to the default's
	noSpread1k := 0.0               // no spread's peak at K = 1,000/s
	for _, k := range []int{500, 1000, 2000, 5000, 20000} {
		cells := map[string][]cell{}
		var ideal float64
		for seed := 1; seed <= 3; seed++ {
			r, err := replicaJSON("-rate", fmt.Sprint(k), "-seed", fmt.Sprint(seed))
			if err != nil {
				return err
			}
			ideal = r.IdealS
			for _, row := range r.Rows {
				cells[row.Name] = append(cells[row.Name], cell{slices.Max(row.PeakCap), row.LastBack})
			}
		}
		med := func(name string) cell {
			cs := cells[name]
			ps, ls := make([]float64, len(cs)), make([]float64, len(cs))
			for i, c := range cs {
				ps[i], ls[i] = c.peak, c.last
			}
			slices.Sort(ps)
			slices.Sort(ls)
			return cell{ps[len(ps)/2], ls[len(ls)/2]}
		}
		fmt.Fprintf(b, "| %d | %.2f s |", k, ideal)
		best := -1.0
		for _, name := range sweepRows {
			c := med(name)
			fmt.Fprintf(b, " %.1fx, %.2f s |", c.peak, c.last)
			if name != rowNoSpread && (best < 0 || c.last < best) {
				best = c.last
			}
		}
		fmt.Fprintln(b)
		d, nf := med(rowDefault), med(rowNoFailover)
		worstPeakRatio = max(worstPeakRatio, d.peak/nf.peak)
		worstFinish = max(worstFinish, d.last/best)
		q4, whole := med("failover, spread Base/4"), med("failover, spread Base")
		if k == 1000 {
			noSpread1k = med(rowNoSpread).peak
		}
		if q4Peak == 0 || q4.peak/d.peak < q4Peak {
			q4Peak = q4.peak / d.peak
		}
		if q4.last > d.last {
			q4Later = append(q4Later, fmt.Sprint(k))
		}
		if whole.last > d.last {
			baseLater = append(baseLater, fmt.Sprint(k))
		}
	}
	list := func(ks []string) string {
		if len(ks) == 0 {
			return "none"
		}
		return strings.Join(ks, ", ")
	}
	fmt.Fprintf(b, "\nA spread trades the survivors' peak against the time to get back: the displaced clients arrive over rand[0, FailoverSpread), so a narrow spread lands them on the next replica faster than it can accept them, and the refused ones fall into the backoff and come back later, after the round. Without spread the whole displaced fleet hits replica 1 in one window (%.1fx its capacity at K = 1,000/s). ", noSpread1k)
	fmt.Fprintf(b, "Base/2 is the default: over the sweep its peak is at most %.1fx that of the loop without failover (whose first retry after a stable loss is already spread over rand[0, Base)), and its last client is back within %.2fx of the best spread's at every K. Base/4, DESIGN's first guess, overloads the survivors at least %.1fx as much and finishes later at K = %s; Base matches the loop's peak and finishes later at K = %s. ", worstPeakRatio, worstFinish, q4Peak, list(q4Later), list(baseLater))
	slow, err := replicaJSON("-dead-timeout", "10s")
	if err != nil {
		return err
	}
	last := map[string]float64{}
	for _, row := range slow.Rows {
		last[row.Name] = row.LastBack
	}
	fmt.Fprintf(b, "Failover pays off when the dead replica is slow to refuse: with dials to it timing out after 10 s, the loop waits for it on every pass and its last client is back at %.1f s, the default failover's at %.1f s (K = 1,000/s, seed 1).\n\n", last[rowNoFailover], last[rowDefault])
	return nil
}
