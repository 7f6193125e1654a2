package statuspage

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"
)

// tickServer is a real WebSocket feed on 127.0.0.1 that the test can stop
// (listener closed, every connection dropped) and start again on the same
// address. A client sends "subscribe from=N" and then gets "tick N+1",
// "tick N+2", ... every 100ms.
type tickServer struct {
	addr string

	mu       sync.Mutex
	srv      *http.Server // nil while stopped
	conns    map[*websocket.Conn]struct{}
	handlers sync.WaitGroup // the Serve loop and every handler
}

const tickEvery = 100 * time.Millisecond

// startTicks starts a feed on a free port; it is stopped when the test
// ends.
func startTicks(t *testing.T) *tickServer {
	s := &tickServer{addr: "127.0.0.1:0", conns: map[*websocket.Conn]struct{}{}}
	require.NoError(t, s.start())
	t.Cleanup(s.stop)
	return s
}

// URL is the feed's address.
func (s *tickServer) URL() string { return "ws://" + s.addr + "/ticks" }

// start listens on the feed's address again (the first time on a free
// port).
func (s *tickServer) start() error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 5 * time.Second}
	s.mu.Lock()
	s.addr, s.srv = ln.Addr().String(), srv
	s.handlers.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.handlers.Done()
		_ = srv.Serve(ln)
	}()
	return nil
}

// stop closes the listener and every connection, and waits for the
// handlers; a stopped server is stopped again at no cost.
func (s *tickServer) stop() {
	s.mu.Lock()
	srv, conns := s.srv, s.conns
	s.srv, s.conns = nil, map[*websocket.Conn]struct{}{}
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close() // the listener and the connections not yet hijacked
	}
	for c := range conns {
		_ = c.CloseNow()
	}
	s.handlers.Wait()
}

// enter counts a handler in and keeps its connection, unless the server
// is stopping or stopped.
func (s *tickServer) enter(srv *http.Server) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != srv {
		return false
	}
	s.handlers.Add(1)
	return true
}

func (s *tickServer) track(srv *http.Server, c *websocket.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != srv {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *tickServer) serve(w http.ResponseWriter, r *http.Request) {
	srv := r.Context().Value(http.ServerContextKey).(*http.Server)
	if !s.enter(srv) {
		http.Error(w, "stopping", http.StatusServiceUnavailable)
		return
	}
	defer s.handlers.Done()
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	if !s.track(srv, c) {
		return
	}
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	_, msg, err := c.Read(r.Context())
	if err != nil {
		return
	}
	seq, err := strconv.ParseInt(strings.TrimPrefix(string(msg), "subscribe from="), 10, 64)
	if err != nil {
		_ = c.Close(websocket.StatusPolicyViolation, "want subscribe from=N")
		return
	}
	ctx := c.CloseRead(r.Context()) // answers pings; ends when the connection does
	tick := time.NewTicker(tickEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		seq++
		if c.Write(ctx, websocket.MessageText, []byte("tick "+strconv.FormatInt(seq, 10))) != nil {
			return
		}
	}
}
