// Package supervisor keeps one long-lived connection alive.
//
// A Supervisor's Run is the one goroutine that owns the connection's
// lifecycle: it dials (Connector.Connect), runs Options.OnConnect, watches
// the connection (Watcher.Watch, or waits for Invalidate), closes it when it
// breaks, backs off, and dials again:
//
//	Idle -> Connecting -> Connected -> (broken) -> Backoff -> Connecting -> ...
//	             \-> Backoff (failed attempt)          any -> Stopped (ctx ended)
//	             \-> Failed (Permanent error, or MaxAttempts reached)
//
// The first attempt is immediate. The delays come from a Policy over the
// backoff package: decorrelated jitter by default; rand[0, Base) before the
// first retry after a stable connection was lost; a reset only after a
// connection lived StableAfter; server hints lengthen waits. Status,
// Subscribe (a conflating health channel) and a health.Registry tell the
// program and its probes the truth about the connection.
//
// At most one connection is live per supervisor, ever; on every exit path
// it is closed before Run returns.
package supervisor
