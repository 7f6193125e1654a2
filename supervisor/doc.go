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
// The first attempt is immediate. The delays follow the backoff package:
// decorrelated jitter by default, where every backoff draw of an outage
// but its first is also at most half the outage so far (Base at least),
// so that a client's first attempt after the server is back comes within
// 1.5 times the outage or 4 Base, whichever is longer (attempts refused at
// once, no hint, no Budget refusal; an outage runs from the loss of a
// connection that lived StableAfter, a flap does not end it);
// rand[0, Base) before the first retry after a stable connection was lost;
// a reset only after a connection lived StableAfter; server hints lengthen
// waits. Status,
// Subscribe (a conflating health channel) and a health.Registry tell the
// program and its probes the truth about the connection.
//
// RetryNow cuts a Backoff wait short when the program learned by another
// path that the other side is back, Proven a hint's too when it just used
// it; ErrReplaced replaces a connection without a loss. Do runs a function with the live
// connection (invalidating it when the function's error broke it); Connections is a range-over-func loop over
// each live connection in turn. Both end when the supervisor stops or
// fails — Done is closed and Err says why — so a loop written the obvious
// way cannot spin after Failed.
//
// At most one connection is live per supervisor, ever; on every exit path
// it is closed before Run returns. A panic in a callback (the Connector's,
// OnConnect, Classify, the Logger's handler) fails the supervisor with
// ErrPanicked, closes the connection, Done and the health channels, and
// then Run panics again with the same value. Err is set before the final
// Status is published.
package supervisor
