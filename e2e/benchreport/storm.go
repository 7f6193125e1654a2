package main

import (
	"fmt"
	"strings"
)

// stormSection reports the reconnect storm over real loopback TCP.
func stormSection(b *strings.Builder) error {
	out, err := stormBench.run()
	if err != nil {
		return err
	}
	ss := parse(out)
	fmt.Fprintf(b, "## A reconnect storm over loopback TCP\n\n")
	fmt.Fprintf(b, "%s: 1,000 clients connected to one server, ", stormBench)
	fmt.Fprintf(b, "the server stopped (every connection closed), down for 500 ms, started again on the same port; median of 3 runs. ")
	fmt.Fprintf(b, "redial: `adapters/tcp` supervisors with the default policy (decorrelated jitter, Base 1 s, Cap 1 minute; StableAfter 1 s so that the seconds-old connections count as stable, as a real fleet's hours-old ones do). ")
	fmt.Fprintf(b, "no jitter: a plain loop that dials at once after the loss, then waits 1 s, 2 s, 4 s...\n\n")
	fmt.Fprintf(b, "| clients | all back after the server returned | peak accepts in one 100 ms window |\n|---|---|---|\n")
	peaks := map[string]float64{}
	for _, kind := range []string{"redial", "no-jitter"} {
		d, n := median(ss, "BenchmarkReconnectStorm/"+kind, "s-until-all-back")
		peak, _ := median(ss, "BenchmarkReconnectStorm/"+kind, "peak-accepts/100ms")
		if n == 0 {
			return fmt.Errorf("no result for BenchmarkReconnectStorm/%s", kind)
		}
		peaks[kind] = peak
		fmt.Fprintf(b, "| %s | %.2f s | %.0f |\n", kind, d, peak)
	}
	fmt.Fprintf(b, "\nOn loopback the server takes 1,000 connections at once, so the wave costs nothing here; ")
	fmt.Fprintf(b, "the peak is what a real server, a TLS terminator or a database would have to absorb. ")
	fmt.Fprintf(b, "redial trades a slower return (its first retry is spread over rand[0, Base), and those that hit the 500 ms outage back off) for a peak %.2fx the plain loop's.\n\n", peaks["redial"]/peaks["no-jitter"])
	return nil
}
