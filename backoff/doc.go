// Package backoff computes the delays between attempts to reach a server and
// decides whether to retry at all.
//
// A Backoff spreads clients out with jitter: Decorrelated (the default,
// Base 1s, Cap 1 minute), Full, Equal, or plain Exponential for comparison.
// Each Backoff owns its generator and allocates nothing per Next.
//
// Errors carry the decisions: Permanent marks an error as final (Retryable
// lifts that mark, keeping the chain), RetryAfter attaches a server's hint (HTTP Retry-After, WebSocket close 1013, ...) that
// lengthens the next wait. A Budget caps retries across a whole process.
// A Breaker (a circuit breaker) stops calling a server that keeps failing:
// after Failures consecutive failures it refuses every call for a Cooldown,
// then lets one probe through to decide whether to close again.
// Retry runs one operation under all of these rules; the supervisor package
// applies the same rules to a long-lived connection.
//
// Hedge cuts the latency tail of a request instead: when a call has not
// returned after Delay (about its 95th percentile), it sends a copy, and the
// first success wins; the extra copies spend the same Budget as retries.
//
// The package starts no goroutines, except the copies Hedge runs (all of
// which have returned when Hedge does), and does no I/O.
package backoff
