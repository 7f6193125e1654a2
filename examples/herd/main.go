// Command herd simulates a thundering herd in virtual time: N clients lose
// their connection at once, the server is down for D and then accepts at
// most K new connections per second. It runs the real backoff package and
// the supervisor's real delay rules (internal/policy) for each strategy,
// and package admit's Planner as the planned row's server, prints one table row per
// strategy and writes an SVG plot of attempts per 100 ms window.
//
// With -replicas R it runs the replica scenario instead: N clients over R
// replicas, one of which dies, found again by the supervisor's failover
// (internal/policy with R endpoints) or by a loop over the host list.
//
//	go run ./examples/herd -svg herd.svg
//	go run ./examples/herd -replicas 3
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	s := scenario{Window: 100 * time.Millisecond, Horizon: 6 * time.Hour}
	flag.IntVar(&s.N, "n", 10000, "clients")
	flag.DurationVar(&s.Down, "down", 30*time.Second, "how long the server is down")
	flag.IntVar(&s.Rate, "rate", 1000, "new connections the server accepts per second once up")
	flag.DurationVar(&s.Base, "base", time.Second, "backoff base")
	flag.DurationVar(&s.Cap, "cap", time.Minute, "backoff cap")
	flag.Uint64Var(&s.Seed, "seed", 1, "seed (non-zero)")
	flag.IntVar(&s.Service, "service", 0, "handshakes a second the server can process at most (0: no limit)")
	flag.Float64Var(&s.AgeBound, "age-bound", 0, "redial rows: a wait at most this fraction of the outage so far (0: the policy's default, negative: no bound)")
	replicas := flag.Int("replicas", 0, "the replica scenario: N clients over this many replicas of -rate each, one of which dies (0: the single-server scenario)")
	deadTimeout := flag.Duration("dead-timeout", 0, "the replica scenario: how long a dial to the dead replica takes to fail (0: refused at once)")
	eject := flag.Bool("eject", false, "the ejection sweep: N clients over 3 replicas of -rate each, connections living exp(-life), replica 0 sick for -sick")
	life := flag.Duration("life", time.Minute, "the ejection sweep: a connection's mean life")
	sick := flag.Duration("sick", 5*time.Minute, "the ejection sweep: how long replica 0 is sick")
	svg := flag.String("svg", "", "write the plot to this SVG file")
	asJSON := flag.Bool("json", false, "print the rows as JSON instead of the table")
	broker := flag.Bool("amqp091", false, "the broker rows: amqp091-go's own recovery beside redial's policy")
	flag.Parse()
	if err := s.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "herd:", err)
		os.Exit(2)
	}
	if *broker {
		rs, err := simulateBroker(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, "herd:", err)
			os.Exit(1)
		}
		reportBroker(os.Stdout, s, rs)
		return
	}
	if *eject {
		es := ejectScenario{N: s.N, Rate: s.Rate, Base: s.Base, Cap: s.Cap, Life: *life, Bad: time.Minute, Sick: *sick,
			Until: 15 * time.Minute, DeadTimeout: *deadTimeout, Seed: s.Seed, Window: s.Window}
		results, err := simulateEject(es)
		if err == nil && *asJSON {
			err = writeEjectJSON(os.Stdout, results)
		} else if err == nil {
			reportEject(os.Stdout, es, results)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "herd:", err)
			os.Exit(1)
		}
		return
	}
	if *replicas != 0 {
		rs := replicaScenario{N: s.N, Replicas: *replicas, Rate: s.Rate, Base: s.Base, Cap: s.Cap, Seed: s.Seed, Window: s.Window, Horizon: s.Horizon, DeadTimeout: *deadTimeout}
		if err := rs.validate(); err != nil {
			fmt.Fprintln(os.Stderr, "herd:", err)
			os.Exit(2)
		}
		results, err := simulateReplicas(rs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "herd:", err)
			os.Exit(1)
		}
		if *asJSON {
			err = writeReplicasJSON(os.Stdout, rs, results)
		} else {
			reportReplicas(os.Stdout, rs, results)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "herd:", err)
			os.Exit(1)
		}
		return
	}
	results, err := simulateAll(s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "herd:", err)
		os.Exit(1)
	}
	if *asJSON {
		if err := writeJSON(os.Stdout, s, results); err != nil {
			fmt.Fprintln(os.Stderr, "herd:", err)
			os.Exit(1)
		}
	} else {
		report(os.Stdout, s, results)
	}
	if *svg != "" {
		f, err := os.Create(*svg)
		if err == nil {
			err = plot(f, s, results)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "herd:", err)
			os.Exit(1)
		}
		fmt.Println("plot written to", *svg)
	}
}

func (s scenario) validate() error {
	switch {
	case s.N <= 0 || s.N > 10_000_000:
		return fmt.Errorf("-n %d must be in [1, 10000000]", s.N)
	case s.Down < 0:
		return fmt.Errorf("-down %v is negative", s.Down)
	case s.Rate <= 0 || s.Rate > 1_000_000:
		return fmt.Errorf("-rate %d must be in [1, 1000000]", s.Rate)
	case s.Seed == 0:
		return fmt.Errorf("-seed must not be 0")
	}
	return nil
}

// report prints the table; the targets and their verdicts are
// BENCHMARKS.md's (e2e/benchreport).
func report(w io.Writer, s scenario, rs []result) {
	capacity := float64(s.Rate) * s.Window.Seconds()
	fmt.Fprintf(w, "herd: N=%d, server down %v then %d/s (%.0f per %v window), base %v, cap %v, seed %d; ideal finish %v\n\n",
		s.N, s.Down, s.Rate, capacity, s.Window, s.Base, s.Cap, s.Seed, s.ideal())
	fmt.Fprintf(w, "| %-22s | %9s | %9s | %13s | %8s | %8s | %13s | %8s |\n", "strategy", "peak/win", "peak/mean", "peak up /cap", "attempts", "failed", "last back", "/ideal")
	fmt.Fprintf(w, "|%s|%s|%s|%s|%s|%s|%s|%s|\n", dash(24), dash(11), dash(11), dash(15), dash(10), dash(10), dash(15), dash(10))
	for _, r := range rs {
		m := measure(s, r)
		last, ratio := "never", "-"
		if r.Left == 0 {
			last = r.LastConnected.Round(100 * time.Millisecond).String()
			ratio = fmt.Sprintf("%.2f", m.finishRatio)
		}
		fmt.Fprintf(w, "| %-22s | %9d | %9.1f | %13.2f | %8d | %8d | %13s | %8s |\n",
			r.Name, m.peak, m.peakToMean, m.peakAfterUp/capacity, r.Attempts, r.Failed, last, ratio)
	}
}

func dash(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '-'
	}
	return string(b)
}
