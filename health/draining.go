package health

// DrainingSource is a Source that a program can drain before it shuts
// down (a supervisor, an adapter): once Draining reports true, the
// entry is not ready, whatever its State, so that a load balancer stops
// sending work before the connection says goodbye.
type DrainingSource interface {
	Source
	Draining() bool
}
