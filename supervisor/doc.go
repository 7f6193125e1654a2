// Package supervisor keeps one long-lived connection alive.
//
// A Supervisor's Run is the one goroutine that owns the connection's
// lifecycle: it dials (Connector.Connect), runs Options.OnConnect, watches
// the connection (Watcher.Watch, or waits for Invalidate), closes it when it
// breaks, backs off, and dials again:
//
//	Idle -> Connecting -> Connected -> (broken) -> Backoff -> Connecting -> ...
//	             |                \-> (ErrReplaced) -> Connecting -> ...
//	             \-> Backoff (failed attempt)          any -> Stopped (ctx ended)
//	             \-> Failed (Permanent error, or MaxAttempts reached)
//
// The first attempt is immediate. The delays follow the backoff package
// (decorrelated jitter by default), with three rules of their own: a wait
// is at most half the outage so far, so a client comes back within 1.5
// times the outage or 4 Base; the first retry after a connection that
// lived StableAfter waits rand[0, Base); only such a connection resets the
// backoff. A server's hint of Base or more is the wait (package admit
// plans slots with it), a shorter one only lengthens it. Status,
// Subscribe (a conflating health channel) and a health.Registry tell the
// program and its probes the truth about the connection.
//
// RetryNow cuts a Backoff wait short, ReportSuccess a hint's too; ErrReplaced
// replaces a connection without a loss. Do runs a function with the live
// connection; Connections is a loop over each live connection in turn.
// Both end when the supervisor stops or fails: Done is closed and Err
// says why. Replace and Settings.MaxConnectionAge replace a connection
// make-before-break (Connected -> Connected); Drain shuts down gracefully:
// not ready, no new work, the work under way finished, a goodbye, Stopped.
//
// At most one connection is live, and it is closed before Run returns. A
// panic in a callback fails the supervisor with ErrPanicked, closes the
// connection, Done and the health channels, and then Run panics again with
// the same value.
package supervisor
