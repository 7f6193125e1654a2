package storm

import (
	"context"
	"net"
	"runtime"
	"sync"
	"testing"

	"github.com/redial-go/redial/adapters/tcp"
)

// holdServer accepts connections and holds them, with no goroutine per
// connection, so that what is measured on the client side is the client's.
type holdServer struct {
	ln       net.Listener
	mu       sync.Mutex
	held     []net.Conn
	accepted chan struct{}
}

func newHoldServer(tb testing.TB) *holdServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &holdServer{ln: ln, accepted: make(chan struct{})}
	go func() {
		defer close(s.accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.held = append(s.held, c)
			s.mu.Unlock()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		<-s.accepted
		s.drop()
	})
	return s
}

// drop closes every held connection.
func (s *holdServer) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.held {
		c.Close()
	}
	s.held = nil
}

// memory returns the heap in use and the stacks, after two GCs (the second
// shrinks what the first found oversized).
func memory() (heap, stack float64) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc), float64(m.StackInuse)
}

// BenchmarkIdleTCPSupervisors connects 5,000 tcp.New supervisors to one
// loopback server and lets them idle, and in the same run dials 5,000
// plain net.Conns to it and holds them. Reported per connection: what the
// supervisor adds to the connection itself (heap and stack, supervised
// minus plain: the Supervisor, its policy and history, its parked Run
// goroutine), and the stack alone. Run it with -benchtime=1x.
func BenchmarkIdleTCPSupervisors(b *testing.B) {
	const n = 5000
	srv := newHoldServer(b)
	addr := srv.ln.Addr().String()
	for range b.N {
		// Plain connections, held by the program: the baseline.
		h0, s0 := memory()
		plain := make([]net.Conn, n)
		for i := range plain {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			plain[i] = c
		}
		h1, s1 := memory()
		for _, c := range plain {
			c.Close()
		}
		plain = nil
		srv.drop()

		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		h2, s2 := memory()
		for range n {
			s, err := tcp.New(addr, tcp.Options{})
			if err != nil {
				b.Fatal(err)
			}
			wg.Go(func() { _ = s.Run(ctx) })
			if _, err := s.Conn(ctx); err != nil {
				b.Fatal(err)
			}
		}
		h3, s3 := memory()
		plainPer := (h1 - h0 + s1 - s0) / n
		supPer := (h3 - h2 + s3 - s2) / n
		b.ReportMetric(supPer-plainPer, "B/supervisor")
		b.ReportMetric((s3-s2)/n, "stack-B/supervisor")
		b.ReportMetric(plainPer, "B/plain-conn")
		cancel()
		wg.Wait()
		srv.drop()
	}
}
