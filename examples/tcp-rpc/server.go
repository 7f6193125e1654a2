package main

import (
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp/rpc"
)

// server is an rpc2 server whose Server.Quote method asks the caller for
// its name (a call from the server back into the client) before it answers.
type server struct {
	addr string
	ln   net.Listener
	wg   sync.WaitGroup

	mu    sync.Mutex
	conns []*rpc2.Client
}

func startServer(addr string, w io.Writer) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &server{addr: ln.Addr().String(), ln: ln}
	srv := rpc2.NewServer()
	rpc.HandlePing(srv)
	srv.Handle("Server.Quote", func(c *rpc2.Client, symbol string, price *string) error {
		var name string
		if err := c.Call("Client.Name", struct{}{}, &name); err != nil {
			return err
		}
		*price = fmt.Sprintf("%s: 42.00 (for %s)", symbol, name)
		return nil
	})
	srv.OnConnect(func(c *rpc2.Client) {
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		fmt.Fprintln(w, "server: a client connected")
	})
	s.wg.Go(func() { srv.Accept(ln) })
	return s, nil
}

// stop closes the listener and every client connection.
func (s *server) stop() {
	_ = s.ln.Close()
	s.wg.Wait()
	s.mu.Lock()
	for _, c := range s.conns {
		_ = c.Close()
	}
	s.conns = nil
	s.mu.Unlock()
}
