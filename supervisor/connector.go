package supervisor

import "context"

// Connector makes connections of type C. Its methods are called one at a
// time, in order, and never with a lock held: Watch on the supervisor's
// goroutine, the others on a short-lived goroutine.
//
// The exception: a Connect, ConnectTo or OnConnect that has not returned
// 100ms after its ctx ended (at ConnectTimeout, or when Run's ctx ended)
// is abandoned: the attempt fails with a timeout, and the call may still
// run during the next attempt or after Run returned. The connection it
// returns is closed, never handed out; its panic fails the supervisor
// (after Run returned, it crashes the program).
//
// C must be comparable for real: an interface type whose dynamic values are
// not comparable (a struct holding a slice, say) panics when the supervisor
// compares it. Pointers, channels and interfaces holding pointers are fine.
type Connector[C comparable] interface {
	// Connect makes one attempt. ctx carries the attempt's timeout
	// (Options.ConnectTimeout) and ends when the supervisor stops: Connect
	// must return promptly once ctx is done, or it is abandoned (see
	// Connector). It returns a live connection or an error, never both and
	// never neither.
	Connect(ctx context.Context) (C, error)
	// Close closes a connection that Connect returned. It is called exactly
	// once per connection.
	Close(conn C) error
}

// Watcher is an optional interface of a Connector that can tell when an
// idle connection broke (a closed socket, a missed heartbeat).
type Watcher[C comparable] interface {
	// Watch blocks until conn breaks, returning the reason, or until ctx
	// ends, returning anything: Invalidate ends it with a cause
	// (context.Cause) that is an *InvalidatedError, the supervisor stopping
	// (or failing back, Settings.PreferFirst) with any other cause: then
	// close politely. A cause wrapping ErrSwitched is a replacement's
	// (Replace): conn stays open, and is watched again if the replacement
	// fails. It runs on the supervisor's own goroutine.
	Watch(ctx context.Context, conn C) error
}

// Endpoints is an optional interface of a Connector that reaches several
// endpoints (replicas) of one service. The supervisor then calls
// ConnectTo instead of Connect: the first attempt goes to endpoint 0, and
// after a failed attempt or a lost connection the next attempt goes to the
// next endpoint that neither rests nor is ejected, after rand[0,
// FailoverSpread); the backoff advances once per round, when every
// endpoint failed since the last success; a server's hint rests only the
// endpoint that gave it. An endpoint that keeps failing is ejected, then
// probed (Settings.EjectAfter); PreferFirst fails back to endpoint 0.
// Status.Endpoint and the logs' "endpoint" name the endpoint in use,
// Supervisor.Endpoints each one's health. One endpoint behaves as a plain
// Connector does: ConnectTo(ctx, 0), no Endpoint shown, since the Name
// says it, and no ejection.
type Endpoints[C comparable] interface {
	// Endpoints returns the endpoints' names, redacted (they are shown in
	// Status and logs); fixed at construction, at least one.
	Endpoints() []string
	// ConnectTo makes one attempt on endpoint i, as Connect does.
	ConnectTo(ctx context.Context, i int) (C, error)
}

// BrokenChecker is an optional interface of a Connector that tells an
// error that broke the connection from one that did not (a SQL error on a
// healthy connection). Do invalidates the connection only when Broken
// says so; without a BrokenChecker every error from Do's f breaks it.
type BrokenChecker interface {
	Broken(err error) bool
}
