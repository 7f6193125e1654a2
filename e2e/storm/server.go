package storm

import (
	"io"
	"net"
	"sync"
	"time"
)

// server accepts connections, keeps them open, and counts accepts per
// window. Restart closes everything and listens again on the same port.
type server struct {
	addr   string
	window time.Duration

	mu      sync.Mutex
	ln      net.Listener
	conns   map[net.Conn]struct{}
	accepts map[int64]int // per window since epoch
	wg      sync.WaitGroup
}

func newServer(window time.Duration) (*server, error) {
	s := &server{window: window, conns: map[net.Conn]struct{}{}, accepts: map[int64]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.addr = ln.Addr().String()
	s.serve(ln)
	return s, nil
}

func (s *server) serve(ln net.Listener) {
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.accepts[time.Now().UnixNano()/int64(s.window)]++
			s.conns[c] = struct{}{}
			s.mu.Unlock()
			s.wg.Go(func() {
				_, _ = io.Copy(io.Discard, c)
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				c.Close()
			})
		}
	})
}

// stop closes the listener and every connection, and waits for them.
func (s *server) stop() {
	s.mu.Lock()
	_ = s.ln.Close()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// start listens again on the same address.
func (s *server) start() error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	s.serve(ln)
	return nil
}

// peakSince returns the most accepts in one window from t on.
func (s *server) peakSince(t time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	from, peak := t.UnixNano()/int64(s.window), 0
	for w, n := range s.accepts {
		if w >= from {
			peak = max(peak, n)
		}
	}
	return peak
}

// open returns the number of open connections.
func (s *server) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
