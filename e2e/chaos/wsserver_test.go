package chaos

import (
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/coder/websocket"
)

// wsServer is a real WebSocket feed server on 127.0.0.1, shared by several
// subjects, each identified by the id query parameter of its URL. It
// counts each subject's live connections in live, from the accepted
// handshake until it sees the connection end. stop and start keep its
// address, as a restarted process would; the feeds (sequence numbers)
// survive a restart.
type wsServer struct {
	name string
	addr string
	live *liveCounter

	mu       sync.Mutex
	srv      *http.Server  // nil while stopped
	served   chan struct{} // closed when srv's Serve returned
	conns    map[*websocket.Conn]struct{}
	streams  map[string]*feedStream
	handlers sync.WaitGroup
}

func startWSServer(t testing.TB, name string, live *liveCounter) *wsServer {
	s := &wsServer{name: name, live: live, conns: map[*websocket.Conn]struct{}{}, streams: map[string]*feedStream{}}
	ln := listenLow(t)
	s.addr = ln.Addr().String()
	s.serve(ln)
	t.Cleanup(s.stop)
	return s
}

func (s *wsServer) serve(ln net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(s.handle)}
	served := make(chan struct{})
	s.mu.Lock()
	s.srv, s.served = srv, served
	s.mu.Unlock()
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
}

// stop closes the listener and drops every connection without a close
// frame, like a killed process, and waits until its handlers returned.
func (s *wsServer) stop() {
	s.mu.Lock()
	srv, served, conns := s.srv, s.served, s.conns
	s.srv, s.conns = nil, map[*websocket.Conn]struct{}{}
	s.mu.Unlock()
	if srv == nil {
		return
	}
	_ = srv.Close()
	for c := range conns {
		_ = c.CloseNow()
	}
	s.handlers.Wait()
	<-served
}

// start listens again on the same address.
func (s *wsServer) start(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		t.Fatalf("%s: listen again on %s: %v", s.name, s.addr, err)
	}
	s.serve(ln)
}

// enter registers a handler; false while the server stops.
func (s *wsServer) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		return false
	}
	s.handlers.Add(1)
	return true
}

// track lets stop drop c; false when the server is stopping.
func (s *wsServer) track(c *websocket.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *wsServer) forget(c *websocket.Conn) {
	_ = c.CloseNow()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// register makes the feed of subject id.
func (s *wsServer) register(id string, st *feedStream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streams[id] = st
}

// stream returns the feed of subject id, nil for an unknown id.
func (s *wsServer) stream(id string) *feedStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams[id]
}

// handle serves one connection of subject id; see feed.
func (s *wsServer) handle(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		return
	}
	defer s.handlers.Done()
	id := r.URL.Query().Get("id")
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	if !s.track(c) {
		_ = c.CloseNow()
		return
	}
	s.live.open(id)
	if st := s.stream(id); st != nil {
		s.serveFeed(c, st)
	}
	s.forget(c) // closed first, then counted as closed
	s.live.close(id)
}
