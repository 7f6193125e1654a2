package conformance

import "sync"

// modes is what a server of this package does with what comes: refuse it
// (how, in the server's own code; 0 serves) and, for its live
// connections, the channels they watch: closing is closed to end them,
// stalled while they answer nothing. Safe for concurrent use.
type modes struct {
	mu      sync.Mutex
	refusal int
	closing chan struct{}
	stalled chan struct{}
}

func (m *modes) init() { m.closing, m.stalled = make(chan struct{}), make(chan struct{}) }

// now returns what a connection that comes now gets.
func (m *modes) now() (refusal int, closing, stalled <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.refusal, m.closing, m.stalled
}

// serve ends the refusal and the stall.
func (m *modes) serve() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refusal = 0
	select {
	case <-m.stalled:
		m.stalled = make(chan struct{})
	default:
	}
}

func (m *modes) refuse(code int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refusal = code
}

// close ends the live connections; later ones are served.
func (m *modes) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	close(m.closing)
	m.closing = make(chan struct{})
}

func (m *modes) stall() {
	m.mu.Lock()
	defer m.mu.Unlock()
	closeOnce(m.stalled)
}
