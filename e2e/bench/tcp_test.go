package bench

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/redial-go/redial/adapters/tcp"
)

// streamServer writes a byte stream to every connection as fast as it is
// read, in 64 KiB writes, and discards what it receives.
type streamServer struct {
	ln net.Listener
	wg sync.WaitGroup
	mu sync.Mutex
	cs []net.Conn
}

func newStreamServer(tb testing.TB) *streamServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &streamServer{ln: ln}
	chunk := make([]byte, 64<<10)
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.cs = append(s.cs, c)
			s.mu.Unlock()
			s.wg.Go(func() {
				for {
					if _, err := c.Write(chunk); err != nil {
						return
					}
				}
			})
			s.wg.Go(func() { _, _ = io.Copy(io.Discard, c) })
		}
	})
	tb.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.cs {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

// BenchmarkTCPReads reads 256 bytes at a time from a loopback stream:
// raw is io.ReadFull on a net.Conn from net.Dial; redial is the same read
// run through Do of a tcp.New supervisor (Conn, the read, no error). One
// op is one 256-byte read.
func BenchmarkTCPReads(b *testing.B) {
	srv := newStreamServer(b)
	addr := srv.ln.Addr().String()
	buf := make([]byte, msgSize)
	b.Run("raw", func(b *testing.B) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := io.ReadFull(conn, buf); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("redial", func(b *testing.B) {
		s, err := tcp.New(addr, tcp.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := run(b, s.Run)
		if _, err := s.Conn(ctx); err != nil {
			b.Fatal(err)
		}
		read := func(_ context.Context, conn net.Conn) error {
			_, err := io.ReadFull(conn, buf)
			return err
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Do(ctx, read); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// run runs Run until the benchmark ends and returns a cancellable ctx for
// the benchmark's calls.
func run(tb testing.TB, runFn func(context.Context) error) context.Context {
	runCtx, stop := context.WithCancel(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = runFn(runCtx) }()
	tb.Cleanup(func() { stop(); <-done; cancel() })
	return ctx
}
