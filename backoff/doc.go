// Package backoff computes the delays between attempts to reach a server and
// decides whether to retry at all.
//
// A Backoff spreads clients out with jitter: Decorrelated (the default,
// Base 1s, Cap 1 minute), Full, Equal, or plain Exponential for comparison.
// Each Backoff owns its generator and allocates nothing per Next.
//
// Errors carry the decisions: Permanent marks an error as final, RetryAfter
// attaches a server's hint (HTTP Retry-After, WebSocket close 1013, ...) that
// lengthens the next wait. A Budget caps retries across a whole process.
// Retry runs one operation under all of these rules; the supervisor package
// applies the same rules to a long-lived connection.
//
// The package starts no goroutines and does no I/O.
package backoff
