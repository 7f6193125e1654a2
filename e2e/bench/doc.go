// Package bench measures the message and call paths of every adapter
// beside the raw library they wrap, in one benchmark run: the same server,
// the same message, the same cancellable ctx, so that the ratio is what
// the adapter adds. go run ./benchreport (in e2e) runs them and
// writes the ratios into BENCHMARKS.md.
package bench
