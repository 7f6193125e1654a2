package testkit

// AfterAccept makes s call f, with the quit channel of the listener that
// accepted, between accepting a connection and registering it.
func AfterAccept(s *Server, f func(quit <-chan struct{})) {
	s.mu.Lock()
	s.afterAccept = f
	s.mu.Unlock()
}
