package main

import (
	"fmt"
	"strings"
)

const admitHeading = "## Planned hints: package admit on real sockets"

// admitN is the admission storm's N; the server takes N/10 a second after
// a 5 s outage.
const admitN = 2000

var admitBench = bench{e2eDir, "./storm", "BenchmarkWebSocketAdmit", []string{"-benchtime", "1x", "-timeout", "60m", "-storm.admitn", fmt.Sprint(admitN)}}

// admitRows map the storm's servers to the simulator's rows: the
// planner's, the policy's against a limit that answers 503 without a
// hint, and the policy's against a server that takes everyone (a rate
// no fleet reaches).
var admitRows = []struct{ bench, herd, rate, what string }{
	{"planned", "redial + planned hints", "", "package admit's Planner (`Config{Rate: 200}`, its Handler)"},
	{"plain", "redial policy", "", "200 a second, the excess 503 without Retry-After"},
	{"none", "redial policy", "100000", "no admission: every handshake taken"},
}

// admitSection runs the admission storm and the simulator beside it.
func admitSection(b *strings.Builder) error {
	out, err := admitBench.run()
	if err != nil {
		return err
	}
	ss := parse(out)
	rate := admitN / 10
	ideal := 5 + float64(admitN)/float64(rate)
	fmt.Fprintf(b, "%s\n\n", admitHeading)
	fmt.Fprintf(b, "%s: %d WebSocket clients on redial's defaults (`websocket.New`), their connections held 31 s so that the loss counts as stable, the server's process gone 5 s (the kernel drops every connection) and then back on the same address taking %d a second, in three ways. ", admitBench, admitN, rate)
	fmt.Fprintf(b, "Figures from the server's records: the busiest 100 ms of handshakes it took (over the rate's share, %d), the busiest 100 ms of all handshakes (503s included), the 503s, and the seconds from its going away until the %d-th was taken (over the ideal, 5 s + N/rate = %.0f s). ", rate/10, admitN, ideal)
	fmt.Fprintf(b, "Beside each figure, in parentheses, `go run ./examples/herd -n %d -rate %d -down 5s -json` (no admission: `-rate 100000`), whose planned row runs package admit's Planner and the clients' `statuscode.Spread`. Targets, with the planner: every client back within 1.05x the ideal, the busiest 100 ms of taken handshakes at most 1.1x the share.\n\n", admitN, rate)
	fmt.Fprintf(b, "| server | every client back (herd) | /ideal (herd) | busiest 100 ms taken / share (herd) | busiest 100 ms, 503s included (herd) | 503s (herd) |\n|---|---|---|---|---|---|\n")
	runs := map[string]herdRun{}
	var planned [2]float64
	for _, r := range admitRows {
		h, ok := runs[r.rate]
		if !ok {
			args := []string{"-n", fmt.Sprint(admitN), "-rate", fmt.Sprint(rate), "-down", "5s"}
			if r.rate != "" {
				args[3] = r.rate
			}
			if h, err = herdJSON(args...); err != nil {
				return err
			}
			runs[r.rate] = h
		}
		hr, ok := h.row(r.herd)
		if !ok {
			return fmt.Errorf("herd has no row %q", r.herd)
		}
		name := "BenchmarkWebSocketAdmit/" + r.bench
		back, k := median(ss, name, "s-until-all-back")
		if k == 0 {
			return fmt.Errorf("no result for %s", name)
		}
		taken, _ := median(ss, name, "peak-taken/100ms")
		peak, _ := median(ss, name, "peak-hs/100ms")
		failed, _ := median(ss, name, "failed-hs")
		share := float64(rate) / 10
		if r.bench == "planned" {
			planned = [2]float64{back / ideal, taken / share}
		}
		fmt.Fprintf(b, "| %s | %.2f s (%.2f s) | %.3fx (%.3fx) | %.0f, %.2fx (%d, %.2fx) | %.0f (%d) | %.0f (%d) |\n",
			r.what, back, hr.LastBack, back/ideal, hr.LastBack/ideal, taken, taken/share, hr.PeakAdmits, float64(hr.PeakAdmits)/share, peak, hr.PeakUp, failed, hr.FailedUp)
	}
	fmt.Fprintf(b, "\n- Target, with the planner every client back within 1.05x the ideal: %s (%.3fx).\n", verdict(planned[0] > 0 && planned[0] <= 1.05), planned[0])
	fmt.Fprintf(b, "- Target, with the planner the busiest 100 ms of taken handshakes at most 1.1x the share: %s (%.2fx).\n\n", verdict(planned[1] <= 1.1), planned[1])
	fmt.Fprintf(b, "The planner admits at its pace and holds an early request for its slot (`Hold`, 2 s); the 503s carry the Retry-After of the refused client's slot, one second less than its whole seconds, and redial's client waits that plus rand[0, 1 s) (`statuscode.Spread`, every HTTP adapter), so it comes within the second before its slot. ")
	fmt.Fprintf(b, "The busiest windows with 503s included are the clients' first attempts after the outage, which their backoff spreads and nothing on the server can: it was away. ")
	fmt.Fprintf(b, "`e2e/storm`'s `TestWebSocketAdmit` runs the same at 200 clients and 40 a second in CI (`REDIAL_STORM_ADMIT=1` runs it at %d).\n\n", admitN)
	return nil
}
