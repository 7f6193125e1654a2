package conformance

import "sync"

// modes is what a server of this package does with what comes: refuse it
// (how, in the server's own code; 0 serves) and, for its live
// connections, closing, closed to end them. Safe for concurrent use.
type modes struct {
	mu      sync.Mutex
	refusal int
	closing chan struct{}
}

func (m *modes) init() { m.closing = make(chan struct{}) }

// now returns what a connection that comes now gets.
func (m *modes) now() (refusal int, closing <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.refusal, m.closing
}

// Serve ends the refusal.
func (m *modes) Serve() { m.refuse(0) }

func (m *modes) refuse(code int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refusal = code
}

// CloseConns ends the live connections; later ones are served.
func (m *modes) CloseConns() {
	m.mu.Lock()
	defer m.mu.Unlock()
	close(m.closing)
	m.closing = make(chan struct{})
}
