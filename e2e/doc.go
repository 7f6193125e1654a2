// Package e2e is the nested test module of redial: the suites and tools
// that need more than the library's own dependencies — toxiproxy fault
// suites (toxitest, and the adapters' fault tests under adapters/), the
// chaos suite, reconnect storms, the anchor benchmarks (cenkalti/backoff)
// and benchreport, which regenerates BENCHMARKS.md. Its go.mod replaces
// the library with this checkout, so a user of the library never
// downloads what only these need.
package e2e
