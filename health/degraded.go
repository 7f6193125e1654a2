package health

// DegradedSource is a Source that can be Connected yet unable to serve (an
// amqp Client while the broker blocks publishing): Degraded says why, nil
// otherwise; safe for concurrent use, never blocking. Critical and
// degraded means not ready, still live.
type DegradedSource interface {
	Source
	Degraded() error
}
