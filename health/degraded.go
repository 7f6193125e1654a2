package health

// DegradedSource is a Source that can be Connected yet unable to serve
// (an amqp Client while the broker blocks publishing): Degraded says why,
// nil otherwise. A critical degraded source is not ready, still live.
// Degraded must be safe for concurrent use and must not block.
type DegradedSource interface {
	Source
	Degraded() error
}
