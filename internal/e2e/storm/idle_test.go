package storm

import (
	"context"
	"net"
	"runtime"
	"sync"
	"testing"

	"github.com/redial-go/redial/adapters/tcp"
)

// BenchmarkIdleTCPSupervisors connects 1,000 tcp.New supervisors to one
// loopback server, lets them idle, and reports the stack each Run
// goroutine holds after the GC had its chance to shrink them: the
// supervisor's stack with a real dialer, which grows it during Connect.
// The heap is not reported: a socket's own memory cannot be told apart.
// Run it with -benchtime=1x.
func BenchmarkIdleTCPSupervisors(b *testing.B) {
	const n = 1000
	// A server that only accepts and holds: no goroutine per connection,
	// so the stacks measured are the supervisors'.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var held []net.Conn
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	defer func() {
		ln.Close()
		<-accepted
		for _, c := range held {
			c.Close()
		}
	}()
	for range b.N {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			s, err := tcp.New(ln.Addr().String(), tcp.Options{})
			if err != nil {
				b.Fatal(err)
			}
			wg.Go(func() { _ = s.Run(ctx) })
			if _, err := s.Conn(ctx); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.GC() // the second cycle shrinks what the first found oversized
		runtime.ReadMemStats(&after)
		b.ReportMetric((float64(after.StackInuse)-float64(before.StackInuse))/n, "stack-B/supervisor")
		cancel()
		wg.Wait()
	}
}
