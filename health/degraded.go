package health

// DegradedSource is a Source that can be Connected yet unable to serve,
// such as an amqp Client whose broker blocks publishing: Degraded says why
// while it lasts, nil otherwise. A critical source that is degraded makes
// the program not ready (it stays live). Degraded must be safe for
// concurrent use and must not block; probes redact its text as Status.Err.
type DegradedSource interface {
	Source
	Degraded() error
}
