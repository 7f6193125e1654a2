package health

// DrainingSource is a Source a program drains before it shuts down (a
// supervisor): while Draining is true its entry is not ready.
type DrainingSource interface {
	Source
	Draining() bool
}
